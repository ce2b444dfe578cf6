"""Sexual content: explicit words, nudity, suggestive words, revealing clothing, and the words that make a
body part a cat, a bird or a pudding instead.
"""

from __future__ import annotations

from yolive.moderation.policy.harm.words import families, graded

# Sexual whoever is in the prompt.
EXPLICIT: dict[str, int] = graded(
    {
        4: """porn porno pornography pornstar xxx hentai rule34 blowjob handjob rimjob footjob cumshot
        creampie gangbang bukkake orgy|orgies orgasm penis vagina vulva clitoris clit labia genitals
        genitalia testicle scrotum erection boner cum cumming semen have_sex sex_tape oral_sex anal
        doggy_style milf dildo jerk_off masturbation dick_pic pussy cunnilingus fellatio deepthroat
        pegging intercourse privates schlong coochie go_down_on sex_position gilf ahegao jizz splooge bussy
        cumslut facial_cumshot""",
        3: """sex nsfw lewd nudes sexting threesome foursome bdsm bondage dominatrix onlyfans camgirl
        stripper striptease strip_club lap_dance erotic erotica horny sex_doll tits boobs nipple cock
        dick hooker prostitute whore slut bare_breasts spread_legs wet_tshirt happy_ending fetish
        barely_legal copulating copulate fornicate fornicating make_love shag shagging knockers tatas
        dong peen cooch cameltoe undress pawg dilf spunk boob booba nudie sext scissoring titjob
        tittyfuck""",
        2: """sexy seductive seductively sensual thong gstring panties busty cleavage kinky make_out breast
        butt booty bend_over stripping strip strips stripped sexual sexually lust lusty steamy aroused
        flash flashing flashes flashed sleep_with bonk bonking hump humping jugs hooters show_all
        facesitting bbw thot""",
        1: [
            "hot",
            "hottie",
            "babe",
            "lingerie",
            "baddie",
            "eggplantemoji",
            "peachemoji",
            "dropletsemoji",
            "tongueemoji",
        ],
    }
)
# Verb families that are sexual in themselves: "masturbating", "groping", "molested".
EXPLICIT_VERBS: dict[str, int] = graded(
    {
        4: """masturbate rape|raping grope molest fondle ejaculate""",
        3: ["undress"],
        2: ["seduce", "twerk", "unbutton"],
    },
    kind="verb",
)
# Sexual violence is violence too (rules_sexual adds the violence finding).
SEXUAL_VIOLENCE = families(
    """rape raping raped rapes rapist grope groping groped molest molesting molested molester
    sexual_assault fondle fondling fondled"""
)
# Nudity: sexual when a person is in the picture, borderline otherwise ("naked" in "naked mole rat" is a
# compound and never gets here).
NUDITY = families(
    """naked nude topless bottomless undressed unclothed nudity no_clothes shirtless undressing"""
)
NUDITY_SEVERITY = {"shirtless": 1}
# Clothes that reveal: borderline alone (severity 1 unless EXPLICIT grades them higher), more with company.
REVEALING = families("""bikini underwear bra stockings miniskirt see_through lingerie thong""")
# With a person these are sexual; with a car or a pepper they are not ("a sexy car", "the hottest chili").
NEEDS_PERSON = {"sexy", "seductive", "seductively", "sensual", "busty", "hot", "butt", "booty", "breast",
                "twerk", "twerking", "twerks", "bend_over", "strip", "stripping", "flash", "flashing",
                "lust", "steamy", "spread_legs", "hump", "humping", "humps", "bonk", "bonking",
                "thick", "thot", "baddie", "scissoring", "bbw"}  # fmt: skip
# Body words that put a person in the picture by themselves ("thick booty twerking").
BODY_WORDS = {
    "booty",
    "butt",
    "ass",
    "tits",
    "boobs",
    "breasts",
    "thighs",
    "cleavage",
    "nipples",
    "body",
    "curves",
}
# Verbs that are sex when done to a person ("riding him", "banging her"), not to a horse or a drum.
ON_A_PERSON = families("""ride mount bang screw pound hump straddle finger grind fuck suck lick""", "verb")
ON_ONESELF = families(["touch", "pleasure", "finger", "rub"], "verb")
# Taking these off is undressing: "pulling down his pants"; a shirt or a hat is not.
UNDRESSING_VERBS = families("""take|took|taken pull drop strip rip remove slip yank""", "verb")
INTIMATE_GARMENTS = families(
    """pants trousers panties knickers bra underwear boxers briefs thong bikini clothes clothing dress
    skirt shorts lingerie"""
)
# A word that is a body part in one sentence and a bird in the next: it counts unless its harmless sense is
# in the same prompt.
AMBIGUOUS = {
    "cock": {"rooster", "hen", "hens", "chicken", "chickens", "farm", "barn", "crowing", "crow", "crows",
    "dawn",
             "fence", "feathers", "weathervane"},
    "pussy": {"cat", "cats", "kitty", "willow", "kitten"},
    "dick": {"moby", "grayson", "tracy", "spotted", "pudding", "van", "dyke", "philip", "nightwing"},
    "tits": {"blue", "great", "coal", "bird", "birds", "feeder", "nest", "willow", "marsh"},
    "booty": {"pirate", "pirates", "treasure", "chest", "gold", "loot"},
    "strip": {"comic", "paint", "wallpaper", "land", "mall", "light", "led", "steak", "tape", "bacon"},
    "stripping": {"paint", "wallpaper", "furniture", "wire", "varnish", "bark"},
    "flash": {"camera", "photo", "lightning", "flood", "light", "gordon", "card", "drive", "mob", "smile"},
    "flashing": {"lights", "light", "camera", "siren", "sign", "screen", "smile"},
    "butt": {"pork", "cigarette", "rifle", "joke", "head"},
    "breast": {"chicken", "turkey", "duck", "cancer", "stroke", "feeding", "pocket"},
    "erection": {"tent", "scaffold", "scaffolding", "building", "monument", "crane"},
    "hooker": {"rugby", "scrum"},
    "cum": {"laude"},
    "sex": {"ed", "education", "pistols", "kitten", "baby", "chick", "determination"},
    "boobs": {"bird", "birds", "flock", "footed", "seabird", "seabirds", "cliff", "nest", "colony", "island"},
    "knockers": {"door", "doors", "brass"},
    "jugs": {"milk", "water", "jug", "wine", "pottery"},
    "hooters": {"owl", "owls", "restaurant", "wings"},
    "privates": {"army", "soldier", "soldiers", "sergeant", "platoon"},
    "hump": {"camel", "camels", "speed", "whale", "road"},
    "humping": {"camel"},
    "dong": {"ding", "bell", "vietnamese", "currency"},
    "shag": {"carpet", "rug", "haircut", "hair"},
}  # fmt: skip
# Words that make a person in the prompt an adult at a bar, not a child ("a woman in a bikini").
PERSONS_FOR_SEXUAL = families(
    """woman|women man|men girl boy guy lady babe blonde brunette redhead model nurse cheerleader teacher
    stripper wife girlfriend boyfriend husband couple milf teen schoolgirl body person|people she her he
    him his they them dancer actress actor celebrity student secretary maid"""
)
