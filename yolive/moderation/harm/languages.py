"""Common words of other languages (Spanish, Portuguese, French, German, Italian) as English tokens, so each
rule is written once: "matar al perro" reads as "kill the dog", "je veux mourir" as "i want to die".
"""

from __future__ import annotations

# Common words of other languages, after accents are stripped (one token -> tokens). Words that are also
# English words ("die", "kind", "nu", "cane", "chat") are only read this way right after another foreign word.
FOREIGN: dict[str, tuple[str, ...]] = {
    # Spanish / Portuguese
    "matar": ("kill",), "mata": ("kills",), "mato": ("killed",), "muerte": ("death",), "muerto": ("dead",),
    "muerta": ("dead",), "morir": ("die",), "morrer": ("die",), "muerete": ("go", "die"),
    "suicidarme": ("kill", "myself"), "suicidio": ("suicide",), "cuchillo": ("knife",), "hombre": ("man",),
    "homem": ("man",), "mujer": ("woman",), "mulher": ("woman",), "nino": ("child",), "nina": ("girl",),
    "ninos": ("children",), "ninas": ("girls",), "crianca": ("child",), "criancas": ("children",),
    "perro": ("dog",), "gato": ("cat",), "desnuda": ("naked",), "desnudo": ("naked",), "desnudas": ("naked",),
    "desnudos": ("naked",), "pelada": ("naked",), "pelado": ("naked",), "tetas": ("tits",), "culo": ("ass",),
    "polla": ("cock",), "puta": ("whore",), "putas": ("whores",), "mierda": ("shit",), "joder": ("fuck",),
    "follar": ("fuck",), "cabron": ("bastard",), "pendejo": ("asshole",), "judios": ("jews",),
    "musulmanes": ("muslims",), "maricon": ("faggot",), "sexo": ("sex",), "porno": ("porn",),
    "violar": ("rape",), "violada": ("raped",), "sangre": ("blood",), "quiero": ("i", "want", "to"),
    "quero": ("i", "want", "to"), "playa": ("beach",), "praia": ("beach",), "cama": ("bed",),
    "un": ("a",), "una": ("a",), "uno": ("a",), "el": ("the",), "la": ("the",), "los": ("the",),
    "las": ("the",), "al": ("the",), "del": ("of", "the"), "con": ("with",), "caralho": ("fuck",),
    "porra": ("damn",), "buceta": ("pussy",), "viado": ("faggot",), "coño": ("cunt",),
    # French
    "tuer": ("kill",), "tue": ("kills",), "homme": ("man",), "femme": ("woman",), "fille": ("girl",),
    "garcon": ("boy",), "enfant": ("child",), "enfants": ("children",), "bebe": ("baby",), "nue": ("naked",),
    "nues": ("naked",), "nus": ("naked",), "merde": ("shit",), "putain": ("fuck",), "salope": ("slut",),
    "pute": ("whore",), "connard": ("asshole",), "encule": ("faggot",), "pede": ("faggot",),
    "juifs": ("jews",), "juif": ("jew",), "musulmans": ("muslims",), "mourir": ("die",),
    "veux": ("want", "to"), "je": ("i",), "chien": ("dog",), "couteau": ("knife",), "avec": ("with",),
    "lit": ("bed",), "sur": ("on",), "une": ("a",), "le": ("the",), "les": ("the",), "des": ("the",),
    # German (ß is read as ss)
    "toten": ("kill",), "umbringen": ("kill",), "erschiessen": ("shoot",), "erstechen": ("stab",),
    "mann": ("man",), "frau": ("woman",), "kinder": ("children",), "madchen": ("girl",), "junge": ("boy",),
    "nackt": ("naked",), "nackte": ("naked",), "nackter": ("naked",), "nacktes": ("naked",),
    "nackten": ("naked",), "juden": ("jews",), "tod": ("death",), "raus": ("out",), "sterben": ("die",),
    "ich": ("i",), "scheisse": ("shit",), "ficken": ("fuck",), "fick": ("fuck",), "hure": ("whore",),
    "schlampe": ("slut",), "arschloch": ("asshole",), "schwuchtel": ("faggot",), "hund": ("dog",),
    "katze": ("cat",), "bett": ("bed",), "selbstmord": ("suicide",), "einen": ("a",), "ein": ("a",),
    "eine": ("a",), "einem": ("a",), "das": ("the",), "dem": ("the",), "der": ("the",), "mich": ("myself",),
    # Italian
    "uccidere": ("kill",), "ammazzare": ("kill",), "gatto": ("cat",), "uomo": ("man",), "donna": ("woman",),
    "bambino": ("child",), "bambina": ("child",), "bambini": ("children",), "nudo": ("naked",),
    "nuda": ("naked",), "sesso": ("sex",), "cazzo": ("fuck",), "puttana": ("whore",), "troia": ("slut",),
    "stronzo": ("asshole",), "vaffanculo": ("fuck", "off"), "morire": ("die",), "voglio": ("i", "want", "to"),
    "spiaggia": ("beach",), "letto": ("bed",),
    # verbs in the forms viewers write most
    "matando": ("killing",), "mataron": ("killed",), "matan": ("kill",), "asesinar": ("murder",),
    "asesinando": ("murdering",), "asesinado": ("murdered",), "disparar": ("shoot",),
    "disparando": ("shooting",),
    "apunalar": ("stab",), "golpear": ("hit",), "golpeando": ("hitting",), "violando": ("raping",),
    "tuant": ("killing",), "poignarder": ("stab",), "frapper": ("hit",), "getotet": ("killed",),
    "totet": ("kills",), "erschossen": ("shot",), "schlagen": ("hit",), "uccide": ("kills",),
    "ucciso": ("killed",), "sparare": ("shoot",), "accoltellare": ("stab",), "chica": ("girl",),
    "chico": ("boy",), "ragazza": ("girl",), "ragazzo": ("boy",), "pechos": ("breasts",), "seins": ("tits",),
    "puto": ("faggot",), "putos": ("faggots",), "perra": ("bitch",), "negros": ("blacks",),
    "monos": ("monkeys",),
    "matarme": ("kill", "myself"), "matarse": ("kill", "himself"), "suicidarse": ("kill", "himself"),
    "ammazzarmi": ("kill", "myself"), "uccidermi": ("kill", "myself"), "teniendo": ("having",),
    # who and where: everyone, the police, places of worship and of children
    "todos": ("everyone",), "todas": ("everyone",), "tous": ("everyone",), "toutes": ("everyone",),
    "alle": ("everyone",), "tutti": ("everyone",), "gente": ("people",), "personas": ("people",),
    "iglesia": ("church",), "igreja": ("church",), "eglise": ("church",), "kirche": ("church",),
    "chiesa": ("church",), "mezquita": ("mosque",), "mesquita": ("mosque",), "mosquee": ("mosque",),
    "moschee": ("mosque",), "moschea": ("mosque",), "sinagoga": ("synagogue",), "escuela": ("school",),
    "colegio": ("school",), "escola": ("school",), "ecole": ("school",), "schule": ("school",),
    "scuola": ("school",), "policia": ("police",), "policias": ("police",), "policiers": ("police",),
    "policier": ("police",), "flics": ("police",), "polizei": ("police",), "polizisten": ("police",),
    "polizia": ("police",), "poliziotti": ("police",), "nena": ("little", "girl"),
    "nenas": ("little", "girls"),
    "nene": ("little", "boy"), "menina": ("girl",), "menino": ("boy",), "ninita": ("little", "girl"),
    "ninito": ("little", "boy"), "kleine": ("little",), "kleines": ("little",), "kleiner": ("little",),
    "piccola": ("little",), "piccolo": ("little",), "pequena": ("little",), "pequeno": ("little",),
    "ropa": ("clothes",), "vetements": ("clothes",), "kleidung": ("clothes",), "vestiti": ("clothes",),
    "perros": ("dogs",), "gatos": ("cats",), "chiens": ("dogs",), "gatti": ("cats",), "hunde": ("dogs",),
    "katzen": ("cats",), "animales": ("animals",), "animaux": ("animals",), "tiere": ("animals",),
    "quemar": ("burn",), "quemando": ("burning",), "ahorcar": ("hang",), "bruler": ("burn",),
    "verbrennen": ("burn",), "bruciare": ("burn",), "maricones": ("faggots",), "morirme": ("die",),
    "mujeres": ("women",), "femmes": ("women",), "frauen": ("women",), "hombres": ("men",),
}  # fmt: skip
# English words that are foreign words too: read as the foreign word only right after a foreign word.
FOREIGN_AFTER_FOREIGN: dict[str, tuple[str, ...]] = {
    "die": ("the",), "kind": ("child",), "nu": ("naked",), "cane": ("dog",), "chat": ("cat",),
    "den": ("the",), "will": ("want", "to"), "im": ("in", "the"), "aux": ("to",),
    "en": ("in",), "in": ("in",), "di": ("of",), "de": ("of",), "me": ("myself",), "son": ("are",),
}  # fmt: skip
# Whole foreign phrases whose words mean something else one by one.
FOREIGN_PHRASES: dict[tuple[str, ...], tuple[str, ...]] = {
    ("muerte", "a", "los"): ("death", "to"), ("muerte", "a"): ("death", "to"), ("mort", "aux"): ("death",
    "to"),
    ("tod", "den"): ("death", "to"), ("morte", "ai"): ("death", "to"), ("ich", "will"): ("i", "want", "to"),
    ("va", "te", "faire", "foutre"): ("fuck", "you"), ("hijo", "de", "puta"): ("son", "of", "a", "bitch"),
    ("puta", "madre"): ("motherfucker",), ("je", "vais", "me", "tuer"): ("i", "will", "kill", "myself"),
    ("me", "quiero", "matar"): ("i", "want", "to", "kill", "myself"), ("voglio", "morire"): ("i", "want",
    "to", "die"),
    ("quero", "morrer"): ("i", "want", "to", "die"), ("de", "mierda"): ("shit",),
    ("me", "tuer"): ("kill", "myself"), ("me", "matar"): ("kill", "myself"), ("me", "suicider"): ("kill",
    "myself"),
    ("mich", "umbringen"): ("kill", "myself"), ("mi", "uccido"): ("kill", "myself"), ("me",
    "mato"): ("kill", "myself"),
    ("voy", "a"): ("i", "am", "going", "to"), ("je", "vais"): ("i", "am", "going", "to"),
    ("ich", "werde"): ("i", "will"), ("sin", "ropa"): ("without", "clothes"),
    ("sans", "vetements"): ("without", "clothes"), ("petite", "fille"): ("little", "girl"),
    ("petit", "garcon"): ("little", "boy"), ("ohne", "kleidung"): ("without", "clothes"),
    ("zieht", "sich", "aus"): ("undress",), ("se", "desnuda"): ("undress",), ("se",
    "deshabille"): ("undress",),
}  # fmt: skip
