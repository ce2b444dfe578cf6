// What the model will understand in a prompt, shown while the viewer types, and the whole vocabulary one
// click away. Words are found exactly as lab/world/vocabulary.py finds them (the test suite holds the
// two to the same answers): lower case, letters only, the longest phrase first, subjects before settings
// before motions; the first two subjects, the first setting and the first motion are what gets drawn.
const KINDS = [
  ["subject", "subjects"],
  ["setting", "settings"],
  ["motion", "motions"],
];
const WORD = /[a-z]+/g;

export function phraseTables(vocabulary) {
  const tables = {};
  for (const [kind, key] of KINDS) {
    const pairs = [];
    for (const entry of vocabulary[key]) {
      for (const words of entry.words) pairs.push([words.split(" "), entry.name]);
    }
    pairs.sort((a, b) => b[0].length - a[0].length); // stable: equal lengths keep the file's order
    tables[kind] = pairs;
  }
  return tables;
}

export function findWords(tables, prompt) {
  const text = prompt.toLowerCase();
  const tokens = [...text.matchAll(WORD)].map((m) => [m[0], m.index, m.index + m[0].length]);
  const found = [];
  let i = 0;
  while (i < tokens.length) {
    let hit = null;
    for (const [kind] of KINDS) {
      for (const [phrase, name] of tables[kind]) {
        if (phrase.every((word, k) => tokens[i + k] && tokens[i + k][0] === word)) {
          hit = { kind, name, start: tokens[i][1], end: tokens[i + phrase.length - 1][2], length: phrase.length };
          break;
        }
      }
      if (hit) break;
    }
    if (hit) {
      found.push({ kind: hit.kind, name: hit.name, start: hit.start, end: hit.end });
      i += hit.length;
    } else {
      i += 1;
    }
  }
  return found;
}

export function readPrompt(vocabulary, found) {
  const subjects = [];
  let setting = "";
  let motion = "";
  for (const m of found) {
    if (m.kind === "subject" && !subjects.includes(m.name) && subjects.length < vocabulary.max_subjects) {
      subjects.push(m.name);
    } else if (m.kind === "setting" && !setting) setting = m.name;
    else if (m.kind === "motion" && !motion) motion = m.name;
  }
  const d = vocabulary.defaults;
  return {
    subjects: subjects.length ? subjects : [d.subject],
    setting: setting || d.setting,
    motion: motion || d.motion,
    defaults: { subject: !subjects.length, setting: !setting, motion: !motion },
  };
}

function highlighted(prompt, found) {
  const out = document.createDocumentFragment();
  let at = 0;
  for (const m of found) {
    out.append(prompt.slice(at, m.start));
    const mark = document.createElement("mark");
    mark.className = `known known-${m.kind}`;
    mark.title = `${m.kind}: ${m.name}`;
    mark.textContent = prompt.slice(m.start, m.end);
    out.append(mark);
    at = m.end;
  }
  out.append(prompt.slice(at));
  return out;
}

function summary(vocabulary, reading) {
  const emoji = Object.fromEntries(vocabulary.subjects.map((e) => [e.name, e.emoji]));
  const part = (label, text, isDefault) => `${label} ${text}${isDefault ? " (default)" : ""}`;
  return [
    part("Draws", reading.subjects.map((s) => `${emoji[s] || ""} ${s}`).join(" and "), reading.defaults.subject),
    part("in", reading.setting, reading.defaults.setting),
    part("moving", reading.motion, reading.defaults.motion),
  ].join(" · ");
}

function insertWord(box, word) {
  const start = box.selectionStart ?? box.value.length;
  const before = box.value.slice(0, start);
  const after = box.value.slice(box.selectionEnd ?? start);
  const spaced = `${before && !before.endsWith(" ") ? " " : ""}${word}${after.startsWith(" ") ? "" : " "}`;
  if (before.length + spaced.length + after.length > box.maxLength) return;
  box.value = before + spaced + after;
  box.selectionStart = box.selectionEnd = before.length + spaced.length;
  box.dispatchEvent(new Event("input", { bubbles: true }));
  box.focus();
}

function listing(vocabulary, box) {
  const root = document.createDocumentFragment();
  for (const [kind, key] of KINDS) {
    const group = document.createElement("div");
    group.className = `vocabulary-group vocabulary-${kind}`;
    const title = document.createElement("h4");
    title.textContent = key[0].toUpperCase() + key.slice(1);
    group.append(title);
    for (const entry of vocabulary[key]) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `word known-${kind}`;
      button.textContent = `${entry.emoji ? entry.emoji + " " : ""}${entry.name}`;
      button.title = entry.words.join(", ");
      button.addEventListener("click", () => insertWord(box, entry.words[0]));
      group.append(button);
    }
    root.append(group);
  }
  return root;
}

export async function wireVocabulary(url, box, mirror, summaryLine, panel) {
  const response = await fetch(url);
  if (!response.ok) return null; // this model publishes no vocabulary (the stand-in, a real LTX)
  const vocabulary = await response.json();
  const tables = phraseTables(vocabulary);
  const update = () => {
    const found = findWords(tables, box.value);
    mirror.replaceChildren(highlighted(box.value, found));
    summaryLine.textContent = box.value.trim() ? summary(vocabulary, readPrompt(vocabulary, found)) : "";
  };
  box.addEventListener("input", update);
  box.form?.addEventListener("submit", () => setTimeout(update, 0)); // the page clears the box on submit
  panel.querySelector(".vocabulary-list").replaceChildren(listing(vocabulary, box));
  panel.hidden = false;
  mirror.hidden = false;
  update();
  return { vocabulary, tables, update };
}

const script = typeof document === "undefined" ? null : document.getElementById("vocabulary-script");
if (script) {
  wireVocabulary(
    script.dataset.url,
    document.getElementById("prompt-text"),
    document.getElementById("prompt-understood"),
    document.getElementById("prompt-reading"),
    document.getElementById("vocabulary"),
  ).then((wired) => {
    window.yoliveVocabulary = wired ? { ...wired, findWords, readPrompt } : null; // for the browser tests
  });
}
