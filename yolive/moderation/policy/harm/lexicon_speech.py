"""What viewers say rather than show: swearing, insults, threats, and words about self-harm."""

from __future__ import annotations

from yolive.moderation.policy.harm.words import families, graded

# Swearing, graded the way a live channel's caption would be: "damn" barely, "fuck" clearly, "cunt" worst.
PROFANE: dict[str, int] = graded(
    {
        4: """cunt motherfucker motherfucking motherfuckin mothafucka cocksucker madarchod bhenchod
        behenchod""",
        3: """fuck fucker fuckin fucking fucked fuckface fuk fuking fukin fuq fck phuck phucking fvck fvcking
        fcking fking shit shitty bullshit horseshit shithead shitface asshole arsehole dickhead
        son_of_a_bitch bitch biatch wanker twat piece_of_shit jackass dumbass douchebag douche prick
        bastard mierda joder merde putain scheisse arschloch cazzo stronzo vaffanculo kurwa blyat cyka
        suka pizda chutiya gandu orospu siktir kut pendejo caralho wtf stfu gtfo omfg fml bollocks wank
        сука блять блядь хуй пизда""",
        2: """piss pissed goddamn porra cabron kanker mf""",
        1: """ass arse crap damn dammit bloody bugger sod effing frick frigging""",
    }
)
# A few are fine where they mean the animal or the thing ("a female dog, a bitch, with her puppies").
PROFANE_AMBIGUOUS = {
    "bitch": {"puppies", "puppy", "litter", "breeder", "kennel", "whelp", "greyhound"},
    "ass": {"donkey", "donkeys", "mule", "burro", "wild", "jenny"},
    "prick": {"cactus", "thorn", "pin", "needle", "finger"},
    "bloody": set(),  # graded in violence too; as a swear it is mild
    "bollocks": set(),
    "wank": set(),
}
# Insults: harassment when aimed at someone (you, the streamer, chat), merely words otherwise.
INSULTS: dict[str, int] = graded(
    {
        4: ["cunt", "faggot"],
        3: """worthless scum retard retarded whore slut bitch piece_of_shit piece_of_trash degenerate subhuman
        vermin""",
        2: """idiot moron loser looser stupid dumb ugly pathetic garbage trash braindead imbecile clown freak
        disgusting fatass cow pig dog rat incel simp noob jerk creep failure""",
        1: ["fat", "lame", "weirdo", "nerd"],
    }
)
# Spoken at someone: wishing them dead, threatening, telling them to leave.
HOSTILE_PHRASES: dict[str, int] = {
    "kys": 4,
    "go_die": 4,
    "doxx": 4,
    "threat": 3,
    "shut_up": 2,
    "stfu": 2,
    "gtfo": 2,
    "kms": 0,
    "drink_bleach": 4,
    "nobody_likes_you": 3,
    "fuck_you": 3,
    "fuck_off": 3,
    "dox": 4,
    "doxxed": 4,
    "doxed": 4,
    "doxing": 4,
    "doxxing": 4,
    "swatting": 4,
}
# Wishing harm: "i hope your family dies", "you deserve to die", "the host should get cancer".
HARM_WISHES = families("""die|died|dead|dying rot burn cancer aids suffer""", "verb") | {"death"}
WISH_VERBS = {"hope", "hoping", "wish", "deserve", "deserves", "should", "must", "shall"}
THREAT_VERBS = families("""hurt find get kill stab shoot beat murder end destroy rape fuck_up""", "verb")

# Self-harm, said outright.
SELF_HARM: dict[str, int] = {
    "suicide": 3, "suicidal": 3, "self_harm": 3, "pro_ana": 3, "thinspo": 3, "thinspiration": 3,
    "bonespo": 3, "meanspo": 3, "kms": 4, "kill_myself": 4, "end_my_life": 4, "want_to_die": 4,
    "overdose": 3, "overdosing": 3, "overdosed": 3, "purging": 2, "noose": 2, "about_to_jump": 3,
    "suicide_note": 4, "anorexia": 1, "bulimia": 1, "cutting": 0, "kys": 4, "drink_bleach": 4,
    "jump_front": 0, "way_out": 2, "painless_death": 3, "ctb": 4,
}  # fmt: skip
# Verbs that, done to oneself ("himself", "myself"), are self-harm; graded as they are for others.
SELF_HARM_VERBS: dict[str, int] = graded(
    {
        3: """cut slash harm hurt burn starve scratch punch hit beat injure carve""",
        4: """kill shoot hang|hanged|hung stab drown poison overdose slit strangle suffocate end neck off
        unalive""",
    },
    kind="verb",
)
# Means of suicide, worrying when near a person's body ("a gun in his mouth", "a rope around his neck").
MEANS = families("""gun pistol rifle rope noose razor blade pill|pills bleach knife""")
