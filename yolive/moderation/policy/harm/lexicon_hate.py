"""Discrimination and hate: slurs, hate symbols and slogans, and what hateful talk says about a group."""

from __future__ import annotations

from yolive.moderation.policy.harm.words import families, graded

SLURS: dict[str, int] = graded(
    {
        4: """nigger nigga niglet kike chink gook spic wetback beaner raghead towelhead sandnigger faggot
        jigaboo zipperhead slur_porch_monkey slur_camel_jockey maricon muzzie muzrat mudslime groid
        rapefugee dindu kyke nignog nigglet""",
        3: """jig joo jooz jewz retarded fag dyke tranny shemale coon paki yid heeb wop dago gyppo pikey
        retard mongoloid spastic abo halfbreed negress darkie golliwog troon pajeet chinaman ching_chong
        shemale ladyboy""",
        2: ["spaz", "kraut", "gypo", "n_word"],
    }
)
# Slurs that are also ordinary words in some sentence: "coon" next to "hound", "fag" next to a cigarette.
SLUR_AMBIGUOUS = {
    "coon": {"hound", "hounds", "raccoon", "skin", "cap"},
    "jig": {"irish", "dance", "dancing", "dancer", "saw", "fishing", "lure", "woodwork"},
    "jigs": {"irish", "dance", "dancing", "dancer", "saw", "fishing", "lure", "woodwork"},
    "fag": {"cigarette", "smoke", "smoking", "lighter"},
    # a British dish of meatballs: "faggots and mushy peas", "faggots in onion gravy"
    "faggot": {"peas", "mushy", "gravy", "mash", "onion", "butcher", "butchers", "recipe", "pork", "liver"},
    "faggots": {"peas", "mushy", "gravy", "mash", "onion", "butcher", "butchers", "recipe", "pork", "liver"},
    "paki": set(),
    "spaz": set(),
}
# Slurs written with a stretched or misspelt ending ("niggaz", "faggit", "fagot"): the stem is the slur.
SLUR_STEMS = {"nigg": 4, "nigga": 4, "niga": 4, "fagg": 4, "fagot": 4, "faggit": 4, "kike": 4, "tranny": 3,
              "trannie": 3, "retard": 3}  # fmt: skip
# Words that begin like a slur and are not one.
NOT_SLURS = {"niggard", "niggardly", "niggle", "niggles", "niggled", "niggling", "nigga_please"}
# Hate symbols and slogans, with no group needed.
HATE_SYMBOLS: dict[str, int] = {
    "heil_hitler": 4, "white_power": 4, "master_race": 4, "kkk": 4, "1488": 4, "14_88": 4, "white_race": 3,
    "race_war": 3, "final_solution": 3, "burning_cross": 3, "swastika": 2, "ethnic_cleansing": 4,
    "6_million": 0, "nazi": 1, "nazis": 1, "hitler": 1, "neo_nazi": 3, "neonazi": 3, "white_supremacist": 4,
    "heil": 2, "holocaust": 0, "aryan": 2, "slant_eyes": 3,
}  # fmt: skip
# Denial and praise: "the holocaust never happened", "hitler was right", "6 million wasn't enough".
DENIAL_TARGETS = {"holocaust", "hitler", "6_million", "nazis", "nazi"}
DENIAL_WORDS = {"never", "hoax", "lie", "lies", "myth", "fake", "didn", "not", "right", "wrong", "enough",
                "good", "great", "hero", "should_have", "finish_the_job", "again"}  # fmt: skip
# What hateful talk says about a group: dehumanising (4) or a stereotype (3).
DEHUMANISING: dict[str, int] = graded(
    {
        4: """animal ape monkey vermin rat cockroach roach parasite subhuman savage plague disease cancer
        filth insect pig dog beast abomination slave property livestock""",
        3: """terrorist criminal rapist pedophile paedophile thief|thieves freak inferior evil greedy stupid
        dumb lazy dirty disgusting illegal mentally_ill sick pervert scum trash garbage degenerate
        groomer ugly smelly stinky gross nasty worthless useless violent dangerous primitive backward
        barbaric idiot moron loser retarded inbred filthy stinking sneaky smelly uncivilised uncivilized
        parasitic cockroach demon demonic invader invaders breeders""",
    }
)
# Excluding a group: "send them back", "should be deported", "go back to africa".
EXCLUSION = families(["deport", "expel", "ban", "exile", "remove"], "verb") | {
    "back",
    "out",
    "raus",
    "belong",
}
# A group named with these right before it is insulted by it: "a dirty jew", "greedy jews".
GROUP_SLURRING_ADJECTIVES = {"dirty", "filthy", "greedy", "stinking", "stupid", "lazy", "illegal", "subhuman",
                             "inferior", "fat", "ugly", "sneaky", "evil"}  # fmt: skip
