"""Violence: verbs by how much harm they do, the nouns of violence, gore, weapons, and what softens them.

A verb is only violence with a victim (rules_violence finds one); these lists say how bad it is when it has.
"""

from __future__ import annotations

from yolive.moderation.policy.harm.words import families, graded

# Verbs, graded by what they do to a person or an animal.
VIOLENT_VERBS: dict[str, int] = graded(
    {
        # wounding or humiliating: a punch, a kick, a slap
        2: """punch kick slap hit|hitting beat|beaten|beating spank smack whip bully push shove attack assault
        abuse stomp trample beat_up smash slam flush bite|bit|bitten tackle headbutt elbow throttle
        choke harass torment scratch skin hurt|hurting injure wound batter pummel kidnap abduct
        throw|threw|thrown stomp spit_on chain cage tie_up bash clobber thrash wallop boil scald hunt
        ambush toss fling|flung hurl yeet drag round_up euthanize euthanise""",
        # killing or maiming
        3: """kill murder shoot|shot|shooting stab strangle drown poison hang|hanged|hung lynch execute
        slay|slain|slew stone burn|burnt electrocute suffocate smother bludgeon gun_down run_over
        blow_up shoot_up bomb nuke snipe shank assassinate strangle slit|slitting behead decapitate
        set_fire waterboard maim slaughter butcher massacre put_down cut_up burn_down knifing knifed
        starve club hack maul mangle incinerate immolate garrote cripple disfigure brutalize brutalise
        eradicate purge skewer hang_up wipe_out curb_stomp pistol_whip""",
        # cruelty and atrocity whoever the victim is
        4: """torture behead decapitate dismember mutilate disembowel crucify impale lynch massacre
        exterminate waterboard eviscerate flay gas""",
    },
    kind="verb",
)
# Of these, the ones that are also everyday verbs with things ("hit the road", "beat the eggs", "burn the
# toast", "club together") count only with a person or an animal right after them, never from afar.
NEAR_ONLY = families(
    """hit beat whip push burn club hack skin scratch tackle elbow bite stone starve kick smack throw smash
    slam bash boil scald hunt purge skewer thrash toss fling hurl yeet drag""",
    "verb",
)
# Participles that make a victim of the next noun: "a murdered woman", "a beaten dog".
VICTIM_PARTICIPLES = {
    "murdered": 3, "slain": 3, "beheaded": 4, "decapitated": 4, "dismembered": 4, "mutilated": 4,
    "strangled": 3, "tortured": 4, "butchered": 4, "massacred": 4, "executed": 3, "lynched": 4, "stabbed": 3,
    "beaten": 2, "bloodied": 3, "bloody": 3, "dead": 2, "severed": 4, "headless": 4, "disembowelled": 4,
    "disemboweled": 4, "abused": 2, "battered": 2, "wounded": 2, "injured": 2, "kidnapped": 2, "hanged": 3,
    "drowned": 3, "burned": 2, "burnt": 2, "charred": 3, "gutted": 3, "skinned": 3, "shot": 3, "killed": 3,
}  # fmt: skip
# Verbs of a kitchen: done to a food animal they are a recipe ("boil the lobster").
COOKING_VERBS = families("""boil scald skewer roast fry grill butcher skin gut""", "verb")
# An animal still alive when it is cut is cruelty, whatever the kitchen around it.
ALIVE = {"alive", "live", "living", "conscious", "awake", "screaming"}
# Who does violence, named by a noun: with a crowd, a school or a weapon near, a rampage is in the picture.
ATTACKERS = families("""shooter gunman|gunmen bomber terrorist jihadist sniper""")
# Weapons that make any school a scene of an attack ("an ar15 in a classroom").
FIREARMS = families("""gun rifle pistol shotgun ar15 ak47 ak glock uzi mp5 grenade bomb explosive""")
# What is left of a victim: "a dismembered body", "a bloody corpse".
REMAINS = families("""body|bodies corpse carcass remains head torso limb""")

# Violence named by a noun, with no verb needed.
VIOLENT_NOUNS: dict[str, int] = {
    "mass_shooting": 4, "school_shooting": 4, "drive_by": 3, "knife_attack": 3, "terror_attack": 4,
    "suicide_bomber": 4, "massacre": 3, "massacres": 3, "genocide": 4, "bloodbath": 3, "carnage": 3,
    "beheading": 4, "beheadings": 4, "gore": 3, "gory": 3, "guts": 2, "entrails": 3, "dismemberment": 4,
    "torture": 3, "lynching": 4, "snuff": 4, "ethnic_cleansing": 4, "gas_chamber": 3, "execution": 1,
    "murder": 2, "murders": 2, "homicide": 2, "stabbing": 2, "stabbings": 2, "shooting_spree": 4,
    "killing_spree": 4,
    "rampage": 2, "bombing": 1, "hostage": 1, "hostages": 1, "bloodshed": 3, "animal_cruelty": 3,
    "cannibal": 3,
    "cannibalism": 3, "animal_fight": 3, "cockfight": 3, "cockfighting": 3, "dogfighting": 3,
}  # fmt: skip
# Verbs that only ever land on the living: with any object at all they are worth a moderator's look
# ("assassinate biden" names no one the lexicon knows).
ONLY_THE_LIVING = families(
    """murder assassinate behead decapitate strangle torture lynch dismember mutilate kidnap abduct""",
    "verb",
)
# Dead, wounded, injured: of an animal it is nature or a vet's, not cruelty.
NATURAL_FOR_ANIMALS = {"dead", "wounded", "injured", "hurt", "sick"}
BLOOD = {"blood", "bleeding", "bleeds", "bleed", "bled", "bloodied", "bloody", "bloodstained", "blood_soaked"}
WEAPONS = families(
    """gun pistol rifle shotgun knife|knives machete axe|axes sword bomb grenade ak47 ar15 revolver uzi
    chainsaw bat crossbow dagger noose explosive glock ak uzi mp5 9mm gat blade crowbar brick katana
    hammer shotty draco strap tec9 acid"""
)
EXPLOSIONS = families("""bomb explosion exploding explode blast detonate detonating detonation""")
# "kill the dog in the microwave": a place of cruelty for anyone put in it.
CRUEL_PLACES = families("""microwave blender freezer gas_chamber oven furnace""")

# Where a push or a throw becomes a killing: "thrown off a balcony".
FALLS = families("""cliff balcony bridge roof rooftop building window ledge tower""")
# Words that make it worse: "beaten to death", "skinned alive", "for fun".
INTENSIFIERS = {"to_death", "alive", "brutally", "brutal", "savagely", "graphic", "gruesome", "fun", "times",
                "bleeds", "bleed", "until", "till", "til", "repeatedly", "slowly", "mercilessly"}  # fmt: skip

# Contexts where bodies collide by the rules of a game: a punch in the ring, a tackle on the pitch.
SPORT_CONTEXT = families(
    """boxer boxing ring match wrestler wrestling sparring karate judo mma ufc kickboxer kickboxing fencer
    fencing referee knockout tournament olympics jockey hockey rugby football soccer game player team
    sumo bout round champion championship puck pitch scoreline league playoff playoffs season"""
)
# Words of a match report: with a side as the victim ("we massacred them in the final"), a score verb is a
# result.
MATCH_CONTEXT = SPORT_CONTEXT | families(
    """final|finals semifinal derby cup stadium fans coach striker goalkeeper goalie goal basketball baseball
    cricket tennis volleyball handball nba nfl nhl mlb fifa quarterback innings halftime overtime nil win
    victory defeat lineup"""
)
# What a match report says a side did to the other: "we massacred them", "they got slaughtered".
SCORE_VERBS = families(
    """massacre slaughter murder kill destroy butcher annihilate demolish crush thrash hammer batter maul
    obliterate wipe_out bury execute humiliate dismantle""",
    "verb",
)
# Contexts where the violence is make-believe: a video game, a water fight, a tabletop battle.
PLAY_CONTEXT = families(
    """game video_game gamer minecraft fortnite roblox pokemon paintball laser_tag nerf lightsaber zombie
    alien robot boss respawn level character avatar npc cartoon toy pretend cosplay larp dungeon dragon
    orc goblin monster ghost villain superhero gta halo pubg valorant overwatch tekken zelda mario sonic
    fortnite magician magic trick warzone apex csgo skyrim doom battlefield splatoon fps rpg mmo npc
    respawned speedrun lobby multiplayer ~water_gun ~water_guns ~water_pistol ~water_pistols ~nerf_gun
    ~nerf_guns ~squirt_gun ~squirt_guns ~toy_gun ~toy_guns ~assassin_s_creed ~assassins_creed ~assassin_creed
    ~call_of_duty ~elden_ring ~dark_souls ~god_of_war ~mortal_kombat ~resident_evil ~the_last_of_us
    ~red_dead_redemption ~far_cry"""
)
# A painting or a history lesson shows violence at a distance: held rather than refused.
HISTORY_CONTEXT = families(
    """painting mural fresco tapestry engraving museum history historical ancient medieval documentary
    statue sculpture century reenactment"""
)
# What parents do with their children in play: "a dad throwing his son in the air".
PLAYFUL = families("""throw|threw|thrown toss push swing lift chase tackle spin tickle""", "verb")
HUNT_CONTEXT = families("""hunter hunting hunt fisherman fishing angler safari""")
# Shooting with a camera.
PHOTO_CONTEXT = families(
    """photographer photo photoshoot camera film filming movie video scene director portrait picture selfie
    wedding"""
)
COOK_CONTEXT = families(
    """chef cook cooking kitchen recipe grill grilling bbq barbecue fry frying bake baking roast roasting
    oven pan pot sushi dinner meal butcher restaurant"""
)
