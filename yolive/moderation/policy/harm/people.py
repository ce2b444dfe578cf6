"""Who or what a prompt is about: people, children, groups, animals, places full of people.

These are the victims and subjects the intent rules look for: a violent verb is violence only when it lands on
someone ("shoot a man"), never on a thing ("shoot a basketball", "kill the lights").
"""

from __future__ import annotations

from yolive.moderation.policy.harm.words import families, wordlist

# Children for certain. Any of these with anything sexual or violent is the hard floor.
MINORS = families(
    """child|children kid kiddo kiddie baby|babies toddler infant newborn preteen tween teen teenager
    teenage underage minor schoolgirl schoolboy loli lolita shota kindergartner kindergartener pupil
    youngster juvenile grandchild|grandchildren nino nina enfant bambino bambina bambini crianca kinder
    smol prepubescent pubescent underaged schooler grader gradeschooler middleschooler highschooler
    kiddy kindergartner preschooler"""
) - {"minor"}  # "minor" alone is a key or a league; "minors" and "a minor" are read in rules_minors
# People who may be children ("a girl" is often a woman): they tip a finding over, they do not make one.
MAYBE_MINORS = families(
    """girl boy son daughter student classmate schoolkid lad lass stepdaughter stepson stepsister
    stepbrother niece nephew grandson granddaughter"""
)
# Places that are full of children.
MINOR_PLACES = families("""school kindergarten daycare nursery playground classroom schoolyard""")

PEOPLE = families(
    """man|men woman|women person|people guy dude lady gentleman|gentlemen girlfriend boyfriend wife|wives
    husband mother mom mum father dad parent brother sister grandma grandpa grandmother grandfather
    uncle aunt cousin friend neighbor neighbour stranger someone somebody everyone everybody anyone
    anybody victim hostage prisoner civilian villager pedestrian passenger shopper worshipper protester
    crowd audience family|families couple blonde brunette redhead babe model nurse teacher doctor priest
    nun rabbi imam cop police policeman policewoman officer soldier president king queen pope mayor
    politician celebrity boss coworker employee worker customer driver cyclist tourist refugee migrant
    immigrant foreigner homeless elderly streamer host moderator mod viewer cheerleader stripper
    pornstar milf wifey hooker prostitute whore slut bitch hoe thot human folk witness opponent partner
    bride groom groomer pedophile paedophile pedo rapist killer murderer terrorist granny grandad gran
    nana oldie senior pensioner fella bloke gal karen boomer waiter waitress cashier clerk janitor
    farmer monk inmate convict criminal thief robber burglar suspect dealer addict junkie intruder
    sheriff guard bouncer landlord tenant roommate colleague manager ceo billionaire rapper singer actor
    actress influencer youtuber tiktoker gamer nerd geek patient dentist surgeon athlete twin protestor
    rival enemy|enemies soldier traveler traveller hitchhiker shopkeeper jogger runner captain pirate sailor
    prince princess outlaw bandit gangster mobster thug hitman attacker pilot baker miner bishop pastor
    preacher lawyer judge detective spy agent slave servant nanny babysitter camper hiker builder plumber
    electrician mechanic mailman postman trucker peasant citizen resident native scientist professor
    journalist reporter ppl peeps folks bro homie homeboy gal lass ladies bitches hoes baddie
    thot cop|cops trooper marine veteran worshipper churchgoer believer pilgrim student
    teacher coach boxer shopper voter fool opp|opps"""
)
PRONOUNS = {"him", "her", "them", "me", "us", "he", "she", "they", "we", "i", "you", "each_other"}
SELF = {"myself", "yourself", "himself", "herself", "themselves", "themself", "oneself", "ourselves",
        "yourselves", "urself", "meself"}  # fmt: skip
SECOND_PERSON = {"you", "your", "yourself", "urself", "yourselves", "ya", "thou", "thee", "ye"}
# The channel's own people: insults aimed at them are harassment, not a story.
CHANNEL_PEOPLE = families("""streamer host mod moderator chat viewer admin dev chatter""")

ANIMALS = families(
    """animal pet dog puppy|puppies pup cat kitten kitty horse pony foal cow calf|calves bull pig piglet
    sheep lamb goat rabbit bunny|bunnies hamster guinea_pig mouse|mice rat bird parrot owl duck duckling
    chicken hen rooster chick turkey deer fawn fox wolf|wolves bear monkey ape elephant lion tiger zebra
    gazelle giraffe dolphin whale seal otter squirrel frog turtle tortoise snake lizard fish|fish
    goldfish donkey mule camel panda koala raccoon hedgehog ferret cub pigeon crow eagle hawk falcon
    swan goose|geese shark octopus lobster crab salmon trout mole beaver badger stag boar spider ant bee
    doggo doggy pupper kitty|kitties kitteh catto birb bunny|bunnies puppers pooch mutt hound cattle
    livestock ox|oxen stallion mare sparrow robin finch songbird gerbil chinchilla lamb|lambs ewe
    seagull penguin puffin squid hare bird|birds iguana gecko parakeet budgie canary cockatoo
    kangaroo gorilla chimp chimpanzee orangutan rhino hippo leopard cheetah jaguar hyena cub|cubs"""
)
# Animals that hunt: with one of these doing the deed it is a nature film, not cruelty.
PREDATORS = families(
    """lion tiger leopard cheetah jaguar wolf|wolves fox bear shark orca hawk eagle falcon owl snake
    crocodile alligator cat dog spider frog vulture hyena lynx puma cougar"""
)
# Animals people cook: "a chef skinning a fish" is dinner.
FOOD_ANIMALS = families("""fish chicken turkey lobster crab salmon trout pig cow lamb duck shrimp prawn""")

PLACES_OF_PEOPLE = families(
    """crowd market mall concert stadium church mosque synagogue temple hospital bus train subway office
    festival parade street village town city club nightclub airport station restaurant white_house
    capitol parliament embassy pentagon plane airplane building tower skyscraper"""
)
WORSHIP_PLACES = families(["church", "mosque", "synagogue", "temple", "gurdwara"])

BODY_PARTS = families(
    """head throat neck face eye finger hand arm leg foot|feet toe skull chest belly gut tongue ear nose
    wrist vein thigh skin heart intestine lung organ teeth tooth brain spine kidney liver bone|bones rib
    jaw knee kneecap elbow shoulder wing tail paw claw fur feather beak whisker horn tusk fin hoof|hooves
    fingernail nail eyeball"""
)
# Containers and quantities between a verb and its victim: "throwing a bag of kittens".
QUANTITIES = families("""bag sack box bucket barrel litter pile handful bunch cage crate jar tank""")
SELF_HARM_BODY_PARTS = families(["wrist", "vein", "arm", "thigh"])

# Words that may stand between a verb and its victim: "shoots a poor little puppy".
BETWEEN = wordlist(
    """a an the his her their my your our its this that these those some all every each any two three four
    five ten few many several several one another other random poor little young old small big tiny cute
    innocent helpless defenceless defenseless stray screaming crying sleeping pregnant elderly homeless
    black white asian jewish muslim gay lesbian trans disabled naked nude scared lost sweet baby newborn
    whole entire group bunch of up down out him her them neighbors neighbours neighbor's man's woman's
    local unarmed crowded packed busy full fucking damn stupid ugly dirty filthy live living wild
    newborn random innocent defenseless poor lil"""
)

# Groups of people protected from hate: nouns, and the adjectives that make "a <adj> man" one of them.
GROUPS = families(
    """jew muslim moslem christian catholic hindu sikh buddhist atheist asian chinese japanese korean
    indian mexican latino latina hispanic arab african immigrant migrant refugee foreigner gay lesbian
    bisexual homosexual queer transgender gypsy|gypsies roma romani israeli palestinian jewess negro|negroes
    islamist judio musulman juif juden jude lesbo mormon jehovah nigerian somali pakistani afghan syrian
    iraqi iranian turk filipino vietnamese korean thai puerto_rican haitian jamaican ethiopian kenyan
    aboriginal indigenous latinx chicano arab mulatto illegal_alien
    asylum_seeker foreigner outsider lgbt lgbtq homo"""
) | {"blacks", "whites", "trans", "women", "females", "disabled", "autistic", "jewish", "islam",
     "muslims", "jews", "gays", "lesbians", "immigrants", "illegals", "natives", "browns"}  # fmt: skip
# "black" and "white" alone are colours ("a white owl"): they name a group only before a word for people.
GROUP_ADJECTIVES = wordlist(
    """black white asian jewish muslim christian catholic hindu sikh gay lesbian bisexual trans transgender
    lgbt lgbtq queer disabled autistic mexican arab african chinese indian immigrant brown jew latino
    hispanic middle_eastern"""
)
GROUP_NOUNS_AFTER_ADJECTIVE = families(
    """people folk person man|men woman|women guy kid family couple ppl peeps dude community race"""
) | {"lives", "folks", "ladies", "girls", "boys"}
# A child with these is at home.
PARENTS = families("""mother mom mum father dad parent grandma grandpa grandmother grandfather""")
