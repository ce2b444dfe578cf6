"""Fixed phrases that hold a harmful-looking word and mean something harmless ("naked mole rat", "killer
whale", "cum laude"). Each becomes one token no rule knows. Kept general (the phrases people use), not fitted
to any one test.
"""

from __future__ import annotations

from yolive.moderation.policy.harm.words import phrases

BENIGN_COMPOUNDS = phrases(
    """
    naked mole rat, mole rat, naked eye, naked truth, naked flame, the naked chef, naked cake,
    pussy willow, pussy cat, pussycat, blue tit, great tit, coal tit, marsh tit, long tailed tit,
    blue footed booby, red footed booby, horny toad, horned toad, sperm whale, killer whale, killer whales,
    killer bee, killer bees, cum laude, summa cum laude, magna cum laude, moby dick, spotted dick,
    dick grayson, dick tracy, dick van dyke, philip k dick, sex on the beach cocktail,
    sex on the beach drink, sex on the beach cocktails, sex education, sex ed, sex pistols, bloody mary,
    blood orange, blood moon, blood type, blood test, blood donor, blood bank, bath bomb, bath bombs,
    photo bomb, photobomb, drop dead gorgeous, dead tired, dead sea, dead battery, dead end, dead tree,
    kill time, killing time, killing it, killed it, kill it, killer app, shoot hoops, shooting hoops,
    shooting star, shooting stars, photo shoot, water gun, nerf gun, glue gun, squirt gun, staple gun,
    spray gun, nail gun, top gun, pillow fight, snowball fight, food fight, water balloon fight, cock crow,
    cock crows, cock crowing, cock a doodle doo, weather cock, hot dog, hot dogs, chicken breast,
    chicken breasts, turkey breast, duck breast, breast stroke, breast cancer, pork butt, cream pie,
    hell s kitchen, hells kitchen, black friday, black widow, coon hound, coonhound, murder of crows,
    fat cat, strip mall, comic strip, strip steak, hit the road, hit song, smash hit, fruit punch,
    punch bowl, beat the heat, beat the eggs, dying of laughter, dying to see, to die for,
    shot of espresso, shot glass, sex appeal, nude colour, nude color, nude lipstick, nude heels,
    nude tones, nude shade, nude beige, gender reveal, cocktail, bull fight, stags fighting, el nino,
    la nina, kinder egg, kinder surprise, minor key, minor league, minor injury, suicide squad,
    suicide doors, assassin s creed, assassins creed, assassin creed, call of duty, elden ring, dark souls,
    god of war, mortal kombat, resident evil, the last of us, red dead redemption, far cry,
    gang of four, the killers, kill bill, die hard,
    dead or alive, nip slip fix, rape seed, rapeseed, rape field, oilseed rape, faggot meatballs,
    faggots and peas, spotted dick pudding, titmouse, tit willow, boob tube, booby trap, booby prize,
    shag carpet, shag rug, kill two birds with one stone, screaming orgasm, slippery nipple,
    buttery nipple, pornstar martini, dick sporting goods, toy gun, toy guns, cap gun, shoot the breeze,
    shoot for the moon, shot in the dark, big shot, hot shot, mug shot, kill switch, killer instinct,
    dead ringer, drop the bomb, photo shoot, fashion shoot, killing floor, door knocker, door knockers,
    rear naked choke, rear naked chokes, naked choke, peach emoji, birthday bash, drag queen, drag queens,
    blood pressure, blood sample, blood donation, blood drive, blood sugar, bomb sniffing, bomb squad,
    plastic sword, plastic swords, toy sword, toy swords, wooden sword, wooden swords, foam sword,
    plastic gun, toy knife, water pistol, water pistols, bubble gun, laser gun, ray gun, murder mystery,
    murder mysteries, murder mystery party, murder mystery dinner, bomb disposal, cock a leekie, weed killer,
    blowing up balloons, blow up balloons, blew up balloons, blowing up a balloon, blow up a balloon,
    water guns, nerf guns, squirt guns
    """
)
