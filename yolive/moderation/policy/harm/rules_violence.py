"""Violence: a violent verb with a victim, a victim of a violent participle, violence named by a noun, gore.

Intent is "<violent verb> <person or animal>" in either voice: "a man stabs a woman", "a dog being beaten".
What softens it: a predator doing it to prey (a nature film), a game or a sport, a kitchen, a hunt.
"""

from __future__ import annotations

from dataclasses import dataclass

from yolive.moderation.policy.harm import lexicon_violence as lex
from yolive.moderation.policy.harm import people
from yolive.moderation.policy.harm.categories import Category, Finding
from yolive.moderation.policy.harm.doc import Doc, Kind
from yolive.moderation.policy.harm.words import families

PAST_FORMS = ("ed", "en", "wn", "ung", "ot", "ain", "lew", "ung")
_AT = {"at", "toward", "towards"}
_PASSIVE_AUXILIARIES = {"being", "getting", "gets", "got", "get", "been", "was", "were", "is", "are", "be"}
_SETTING = {"set", "sets", "setting", "light", "lights", "lit", "lighting"}
_DETERMINERS = {"a", "an", "the", "this", "that", "some"}
# Words before "someone with a knife" that are not something done to them: "a girl with a knife".
_NOT_ACTIONS = {"with", "and", "or", "of", "is", "are", "was", "were", "like", "as", "by", "to", "from",
    "for",
                "holding", "has", "have", "had", "carrying", "armed", "wielding", "playing",
                "juggling"}  # fmt: skip
_MAIMING = {"cut_off", "slit", "slits", "slitting", "chopped", "severed", "gouged", "cut", "cuts", "cutting",
            "slash", "slashes", "slashing", "slashed", "slice", "slices", "slicing", "sliced", "rip", "rips",
            "ripping", "ripped", "tear", "tears", "tearing", "tore", "gouge", "gouging", "smash", "smashes",
            "smashing", "smashed", "crush", "crushes", "crushing", "crushed", "stab", "stabs",
            "stabbing", "chop", "chops", "chopping", "chop_off", "saw", "saws", "sawing", "sawed", "sawn",
            "hack", "hacks", "hacking", "hacked"}  # fmt: skip
# What says a "we got destroyed" is a lost game rather than an attack.
_LOSS = {"scoreline", "lol", "lmao", "lmfao", "rofl", "game", "match", "round", "team", "again", "today",
         "tonight", "yesterday", "lost", "score", "ranked"}  # fmt: skip
_FOES = {"enemy", "enemies", "opponent", "opponents", "rival", "rivals"}
# Who a score verb lands on in a match report: a side, never a named person ("the referee").
_SIDES = {"we", "us", "they", "them", "you", "team", "teams", "side", "visitors", "hosts", "opponents",
          "rivals", "champions", "place"}  # fmt: skip
# What follows a violent noun ("a stabbing in the park", "a stabbing victim"); any other word after a
# gerund that is also a verb is its object ("stabbing holes in the potatoes"), judged with the verb.
_AFTER_NOUN = {"in", "on", "at", "of", "and", "or", "near", "outside", "inside", "by", "with", "during",
               "after", "before", "victim", "victims", "scene", "spree", "attack", "wound", "wounds",
               "death", "deaths", "incident", "video", "videos", "footage", "rampage", "was", "is", "has",
               "happened", "left", "leaves", "suspect", "where", "that", "which", "who", "while", "then",
               "close", "up", "closeup"}  # fmt: skip
# Poured, thrown or splashed on someone, these burn: "boiling water on a cat", "acid in her face".
_SCALDING = {"scalding_liquid", "acid", "bleach", "gasoline", "petrol", "kerosene", "lye"}
_POURING = families("""pour throw|threw|thrown splash douse spray dump tip""", "verb")
_FEEDING = {"feed", "feeds", "feeding", "fed", "throw", "throws", "throwing", "threw", "thrown"}
_PULLING = {"pull", "pulls", "pulling", "pulled", "pluck", "plucks", "plucking", "plucked", "yank", "yanking",
            "yanked", "twist", "twisting", "twisted"}  # fmt: skip
_SHOOT_AT = {"throw", "throws", "threw", "throwing", "shoot", "shoots", "shot", "shooting", "fire", "fires",
             "fired", "firing", "swing", "swinging", "spit", "spitting"}  # fmt: skip


@dataclass(frozen=True)
class Violence:
    """One act found: how bad, on whom, in which words (rules_minors and rules_hate read the victim)."""

    severity: int
    victim: Kind | None
    words: tuple[str, ...]
    why: str


def _is_past(token: str) -> bool:
    return (
        "_" in token
        or token.endswith(PAST_FORMS)
        or token in ("hit", "cut", "beat", "hung", "shot", "thrown", "slit", "hurt", "set_fire")
    )


def _softened(doc: Doc, severity: int, victim_at: int | None, subject_at: int | None, verb: str = "") -> int:
    victim = doc.kind(victim_at) if victim_at is not None else None
    subject = doc.tokens[subject_at] if subject_at is not None else ""
    if victim == "animal" and verb in lex.COOKING_VERBS and doc.tokens[victim_at or 0] in people.FOOD_ANIMALS:
        return 0  # boiling a lobster, skewering a chicken
    if victim == "animal":
        if subject in people.PREDATORS or subject in people.ANIMALS:
            return 1  # a nature film: the hawk and the rabbit
        if doc.has(lex.COOK_CONTEXT) and doc.tokens[victim_at or 0] in people.FOOD_ANIMALS:
            return 0
        if doc.has(lex.HUNT_CONTEXT):
            severity -= 1
    elif subject in people.ANIMALS and victim in ("person", "maybe_minor"):
        severity -= 1  # a shark attack is a film genre
    if doc.has(lex.PLAY_CONTEXT):
        severity -= 2
    if doc.has(lex.HISTORY_CONTEXT):
        severity -= 1
    if doc.has(lex.SPORT_CONTEXT):
        severity = 0 if severity <= 2 else severity - 2
    return severity


def _worse(doc: Doc, i: int, severity: int) -> int:
    after = doc.tokens[i + 1 : i + 8]
    if any(t in lex.INTENSIFIERS for t in after):
        severity += 1
    pushed = doc.tokens[i].startswith(
        ("push", "throw", "threw", "shov", "yeet", "toss", "fling", "flung", "hurl")
    )
    if pushed and any(t in lex.FALLS for t in after):
        severity += 1  # thrown off a balcony
    return min(severity, 4)


def _victim_of(doc: Doc, i: int) -> tuple[int | None, int | None]:
    """(victim, doer) of the violent verb at i, in the active voice or the passive."""
    token = doc.tokens[i]
    victim_at = doc.victim_after(i, 3 if token in lex.NEAR_ONLY else 5)
    if victim_at is None and token in _SHOOT_AT:
        at = doc.near(i, _AT, before=0, after=3)
        victim_at = doc.victim_after(at, 3) if at is not None else None
    subject_at = doc.subject_before(i)
    after_auxiliary = i > 0 and doc.tokens[i - 1] in _PASSIVE_AUXILIARIES  # "being stomped", "gets set_fire"
    if victim_at is None and (_is_past(token) or after_auxiliary):
        passive = doc.victim_before(i)
        next_word = doc.tokens[i + 1] if i + 1 < len(doc) else ""
        active = passive == i - 1 and next_word in people.BETWEEN  # "a man hit the road"
        if passive is not None and not active:
            victim_at, subject_at = passive, None
    return victim_at, subject_at


def _acts(doc: Doc) -> list[Violence]:
    found: list[Violence] = []
    photo = doc.has(lex.PHOTO_CONTEXT)
    for i, token in enumerate(doc.tokens):
        severity = lex.VIOLENT_VERBS.get(token)
        if severity is None:
            continue
        if token.startswith("ston") and not doc.has({"to_death", "should", "must"}):
            continue  # "stoned" is also high
        if token.endswith("ing") and i > 0 and doc.tokens[i - 1] in _DETERMINERS:
            continue  # "a burning building", "the kicking horse": an adjective
        if photo and token.startswith(("shoot", "shot")):
            continue  # a photographer shooting a wedding
        victim_at, subject_at = _victim_of(doc, i)
        if victim_at is None:
            make_believe = doc.has(lex.PLAY_CONTEXT) and not doc.has_person()  # "beheading zombies"
            if (
                token in lex.ONLY_THE_LIVING
                and doc.victim_after(i, 2) is None
                and _has_object(doc, i)
                and (not make_believe)
            ):
                found.append(Violence(2, None, (token, doc.tokens[i + 1 + _skip(doc, i)]), "violence"))
            continue
        victim = doc.kind(victim_at)
        if victim == "place" and severity < 3:
            continue  # "attack the castle", "hit the town"
        level = _worse(doc, i, _softened(doc, severity, victim_at, subject_at, token))
        if token in lex.PLAYFUL and (doc.has(people.PARENTS) or doc.has({"air", "pool", "swing", "snow"})):
            level = 0  # a dad throwing his son in the air
        if doc.tokens[victim_at] in ("me", "us") and victim_at > i:
            level = min(level, 1)  # "the heat is killing me", "you're killing me"
        if doc.tokens[victim_at] in _FOES:
            level -= 1  # "sniping enemies": most often a game, still worth a look when it is lethal
        if doc.tokens[victim_at] in ("we", "us") and victim_at < i and doc.has(_LOSS):
            level = min(level, 1)  # "we got slaughtered 7-0 lol": a lost match
        if token in lex.SCORE_VERBS and _a_result(doc, victim_at, victim):
            level = 0  # "we massacred them in the final", "they got slaughtered 5 to 0": a result
        if level > 0:
            words = (token, doc.tokens[victim_at]) if victim_at > i else (doc.tokens[victim_at], token)
            found.append(Violence(level, victim, words, f"violence against {_whom(victim)}"))
    return found


def _skip(doc: Doc, i: int) -> int:
    n = 0
    while i + 1 + n < len(doc) and doc.tokens[i + 1 + n] in people.BETWEEN:
        n += 1
    return n


def _has_object(doc: Doc, i: int) -> bool:
    j = i + 1 + _skip(doc, i)
    return j < len(doc) and j - i <= 4 and doc.tokens[j].isalpha()


def _owner(doc: Doc, k: int) -> bool:
    return doc.tokens[k] in ("his", "her", "their", "someone", "somebody") or doc.kind(k) is not None


def _with_weapon(doc: Doc) -> list[Violence]:
    """ "clap him with a glock", "attack a woman with a knife": someone, then a weapon used on them."""
    found = []
    for i in doc.where({"with"}):
        weapon = doc.near(i, lex.WEAPONS, before=0, after=3)
        victim = next((k for k in range(i - 1, max(-1, i - 3), -1) if doc.kind(k) is not None), None)
        if weapon is None or victim is None or doc.kind(victim) in ("place", "minor_place"):
            continue
        if doc.kind(victim) == "animal" and _softened(doc, 3, victim, None) <= 0:
            continue  # a sushi chef slicing salmon with a knife
        before = victim - 1 - sum(1 for k in range(victim - 1, -1, -1) if doc.tokens[k] in people.BETWEEN)
        if before >= 0 and doc.kind(before) is None and doc.tokens[before] not in _NOT_ACTIONS:
            words = (doc.tokens[before], doc.tokens[victim], doc.tokens[weapon])
            found.append(Violence(3, doc.kind(victim), words, "a weapon used on someone"))
    return found


def _whom(victim: Kind | None) -> str:
    return {
        "animal": "an animal",
        "place": "a crowded place",
        "minor_place": "a school",
        "group": "a group",
    }.get(victim or "", "a person")


def _a_result(doc: Doc, victim_at: int, victim: Kind | None) -> bool:
    """A score verb landing on a side in a match report, or on anyone but a child or an animal beside a
    match score ("le PSG qui massacre Lyon 5 à 0")."""
    if doc.has(lex.MATCH_CONTEXT) and doc.tokens[victim_at] in _SIDES:
        return True
    return "scoreline" in doc.tokens and victim not in ("minor", "animal")


def _victims_of_participles(doc: Doc) -> list[Violence]:
    found = []
    for i, token in enumerate(doc.tokens):
        severity = lex.VICTIM_PARTICIPLES.get(token)
        if severity is None or i + 1 >= len(doc):
            continue
        j = i + 1
        while j < len(doc) and doc.tokens[j] in people.BETWEEN and j - i < 3:
            j += 1
        if j >= len(doc):
            continue
        victim = doc.kind(j)
        if victim in ("place", "minor_place") or (victim == "animal" and token in lex.NATURAL_FOR_ANIMALS):
            continue
        if victim is None and doc.tokens[j] not in lex.REMAINS:
            continue
        level = _softened(doc, severity, j if victim else None, None)
        if token in lex.SCORE_VERBS and _a_result(doc, j, victim):
            level = 0  # "the team massacred their rivals 8-1"
        if level > 0:
            found.append(Violence(level, victim, (token, doc.tokens[j]), "a victim of violence"))
    return found


def _named(doc: Doc) -> list[Violence]:
    found = []
    play = doc.has(lex.PLAY_CONTEXT)
    # Make-believe with nobody real in it ("beheading zombies in a video game") is the game's business.
    make_believe = 3 if play and not doc.has_person() else 2 if play else 0
    for i, token in enumerate(doc.tokens):
        severity = lex.VIOLENT_NOUNS.get(token, 0) - make_believe
        after = doc.tokens[i + 1] if i + 1 < len(doc) else ""
        aimed = after in _AT and i + 2 < len(doc) and (doc.tokens[i + 2] in people.BETWEEN or doc.kind(i + 2))
        object_follows = (
            aimed
            or after in people.BETWEEN
            or (after.isalpha() and after not in _AFTER_NOUN and not after.endswith("ly"))
        )
        if token in lex.VIOLENT_VERBS and object_follows:
            continue  # "stabbing a fork into a steak", "stabbing holes": a verb, judged with its object above
        if severity > 0:
            found.append(
                Violence(severity, "minor_place" if token == "school_shooting" else None, (token,), "")
            )
    explosive = doc.where(lex.EXPLOSIONS)
    crowded = [
        i for i in range(len(doc)) if doc.kind(i) in ("place", "minor_place") or doc.tokens[i] == "crowded"
    ]
    if (
        explosive
        and crowded
        and doc.has({"bomb", "bombs", "grenade", "explosive", "explosives", "suicide_bomber"})
    ):
        victim: Kind = "minor_place" if any(doc.kind(i) == "minor_place" for i in crowded) else "place"
        found.append(
            Violence(3, victim, (doc.tokens[explosive[0]], doc.tokens[crowded[0]]), "a bomb among people")
        )
    for i in doc.where(lex.CRUEL_PLACES):
        victims = [k for k in range(max(0, i - 3), i) if doc.kind(k) is not None]
        if victims and doc.tokens[victims[-1]] not in people.FOOD_ANIMALS:
            found.append(
                Violence(3, doc.kind(victims[-1]), (doc.tokens[victims[-1]], doc.tokens[i]), "cruelty")
            )
    weapons = doc.where(lex.WEAPONS)
    if weapons:
        found.append(Violence(1, None, (doc.tokens[weapons[0]],), "a weapon"))
    if doc.has(lex.BLOOD) and doc.has_person():
        person = next(
            i for i in range(len(doc)) if doc.kind(i) in ("person", "minor", "maybe_minor", "group")
        )
        found.append(Violence(2, doc.kind(person), (doc.tokens[person], "blood"), "a bloodied person"))
    for i in doc.where(people.BODY_PARTS):
        maimed = doc.near(i, _MAIMING, before=5, after=2)
        pulled = doc.near(i, _PULLING, before=4, after=0)
        if maimed is None and pulled is not None and doc.near(i, {"off", "out"}, before=0, after=2):
            maimed = pulled  # "pulling the legs off", not "pulling his leg"
        owner = next((k for k in range(i - 1, max(-1, i - 3), -1) if _owner(doc, k)), None)
        if owner is None:  # "the wings off a live bird", "the legs of a frog"
            owner = next((k for k in range(i + 1, min(len(doc), i + 5)) if doc.kind(k) is not None), None)
        if maimed is None or owner is None or doc.tokens[i] in people.SELF_HARM_BODY_PARTS:
            continue
        if doc.tokens[owner] in people.SELF:
            continue
        food = doc.tokens[owner] in people.FOOD_ANIMALS and not doc.has(lex.ALIVE)
        if doc.kind(owner) == "animal" and (food or _softened(doc, 3, owner, None) < 3):
            continue  # a chef jointing a chicken, a nature film
        found.append(Violence(3, doc.kind(owner), (doc.tokens[maimed], doc.tokens[i]), "maiming"))
    for i in doc.where({"on_fire"}):
        victim_at = next((k for k in range(i - 1, max(-1, i - 4), -1) if doc.kind(k) is not None), None)
        if victim_at is not None and doc.near(victim_at, _SETTING, before=3, after=0) is not None:
            level = _softened(doc, 3, victim_at, None)
            if level > 0:
                words = (doc.tokens[victim_at], "on_fire")
                found.append(Violence(level, doc.kind(victim_at), words, "setting someone on fire"))
    for i in doc.where(lex.REMAINS):
        if doc.near(i, {"hanging", "hanged", "hung", "dangling"}, before=0, after=3) is not None:
            found.append(Violence(3, "person", (doc.tokens[i], "hanging"), "a hanged body"))
    for i in doc.where(_SCALDING):
        poured = doc.near(i, _POURING, before=4, after=2)
        victim_at = next((k for k in range(i + 1, min(len(doc), i + 7)) if doc.kind(k) is not None), None)
        if (
            poured is not None
            and victim_at is not None
            and doc.kind(victim_at) not in ("place", "minor_place")
        ):
            level = _softened(doc, 3, victim_at, None)
            if level > 0:
                words = (doc.tokens[i], doc.tokens[victim_at])
                found.append(Violence(level, doc.kind(victim_at), words, "burning someone with a liquid"))
    for i in range(len(doc) - 1):
        live_prey = doc.tokens[i] in lex.ALIVE and doc.kind(i + 1) == "animal" and doc.has(_FEEDING)
        if live_prey and not doc.has(lex.HUNT_CONTEXT):
            found.append(Violence(2, "animal", (doc.tokens[i], doc.tokens[i + 1]), "feeding a live animal"))
    for i in doc.where(lex.ATTACKERS):
        target = next(
            (
                k
                for k in range(max(0, i - 6), min(len(doc), i + 8))
                if doc.kind(k) in ("place", "minor_place")
            ),
            None,
        )
        armed = doc.near(i, lex.FIREARMS, before=6, after=8)
        if (target is not None or armed is not None) and not play:
            whom: Kind | None = doc.kind(target) if target is not None else None
            words = (doc.tokens[i], doc.tokens[target if target is not None else armed or i])
            found.append(Violence(3, whom, words, "an armed attacker"))
    for i in doc.where(lex.FIREARMS):
        school = next((k for k in range(len(doc)) if doc.kind(k) == "minor_place"), None)
        if school is not None and not play and not doc.has(lex.HISTORY_CONTEXT):
            found.append(Violence(3, "minor_place", (doc.tokens[i], doc.tokens[school]), "a gun at a school"))
            break
    if doc.has({"fight", "fighting", "fights", "duel"}) and doc.has({"to_death"}):
        found.append(Violence(3, None, ("fight", "to_death"), "a fight to the death"))
    return found


def find(doc: Doc) -> list[Violence]:
    return _acts(doc) + _victims_of_participles(doc) + _named(doc) + _with_weapon(doc)


def findings(acts: list[Violence]) -> list[Finding]:
    return [Finding(Category.VIOLENCE, a.severity, a.words, a.why) for a in acts]
