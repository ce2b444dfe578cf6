"""Moderation benchmark: the CPU the gate spends judging one prompt, the way a submission is judged.

    python -m benchmarks.moderation [--repeat 3]

Every prompt of the corpus (all splits, disguised copies included) is judged once per round with the gate as
shipped (default levels, the blocked terms of a fresh install, no database), after its models and word
lists are loaded (`gate.warm_up`) and with its cache of readings emptied, so each judgement is a first one.
Reported: CPU milliseconds per prompt (mean, median, 99th percentile, worst), the mean of each stage of the
reading (the reading forms, the language, the English rules and the concepts, the profanity classifier, the
learned reader), and the mean against the goal of about a millisecond. `MODERATION_LEARNED_HOLD_AT=2` in the
environment measures the gate without the learned reader. CPU time of this process, so another process on the
machine does not count. Then the resident memory that loading the gate's models added to the process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial

GOAL_MS = 1.0  # issue 45: "about a millisecond of CPU" a prompt


def resident_mib() -> float:
    """This process's resident memory (Linux's /proc; 0 where there is none)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            kib = next(line for line in status if line.startswith("VmRSS:")).split()[1]
    except (OSError, StopIteration):
        return 0.0
    return int(kib) / 1024


def cpu_ms(work: Callable[[], object]) -> float:
    started = time.process_time()
    work()
    return 1000 * (time.process_time() - started)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds over the corpus (default 3)")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yolive.settings")
    import django

    django.setup()
    from yolive.moderation.policy import corpus, gate, language
    from yolive.moderation.policy.classifier import profanity_score
    from yolive.moderation.policy.evaluate import shipped_matcher
    from yolive.moderation.policy.harm.assess import assess
    from yolive.moderation.policy.harm.categories import DEFAULT_LEVELS, Category
    from yolive.moderation.policy.terms import TermMatcher
    from yolive.moderation.policy.text import language_form, normalize, reading_forms

    def judge(text: str, matcher: TermMatcher, levels: dict[Category, int]) -> object:
        return gate.verdict_for(gate.read_text(text, matcher), levels)

    texts = [e.text for e in corpus.load()]
    matcher, levels = shipped_matcher(), dict(DEFAULT_LEVELS)
    before = resident_mib()
    gate.warm_up()
    loaded = resident_mib() - before
    whole: list[float] = []
    stages: dict[str, list[float]] = {"reading forms": [], "language": [], "rules and concepts": [],
                                      "profanity classifier": [], "learned reader": []}  # fmt: skip
    for _ in range(args.repeat):
        assess.cache_clear()
        for text in texts:
            whole.append(cpu_ms(partial(judge, text, matcher, levels)))
        assess.cache_clear()
        for text in texts:
            normalized = normalize(text)
            stages["reading forms"].append(cpu_ms(partial(reading_forms, normalized)))
            form = language_form(normalized)
            stages["language"].append(cpu_ms(partial(language.identify, form)))
            candidates = language.identify(form).candidates
            stages["rules and concepts"].append(cpu_ms(partial(assess, text, candidates)))
            forms = reading_forms(normalized)
            stages["profanity classifier"].append(cpu_ms(partial(profanity_score, forms)))
            # Given what the rules found, as the gate gives it: the reader names its words only where it alone
            # holds, so without them this stage would pay for words the gate never works out.
            found = list(assess(text, candidates))  # cached by the call above
            stages["learned reader"].append(cpu_ms(partial(gate.learned_finding, forms, found)))
    mean = statistics.fmean(whole)
    cuts = statistics.quantiles(whole, n=100)
    print(f"{len(texts)} prompts x {args.repeat} rounds, CPU ms a prompt:")
    print(f"  mean {mean:.3f}  median {cuts[49]:.3f}  p99 {cuts[98]:.3f}  worst {max(whole):.3f}")
    for stage, times in stages.items():
        print(f"  {stage:<22} {statistics.fmean(times):.3f}")
    print(f"  mean / goal of {GOAL_MS:g} ms: {mean / GOAL_MS:.2f}")
    print(f"memory the gate's models take (resident, added by gate.warm_up): {loaded:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
