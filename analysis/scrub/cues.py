"""The words that introduce a person's name in text (see :mod:`~handoff.analysis.scrub.people`):
greetings, sign-offs, role words, relatives, self-introductions, prepositions and verbs of
record-keeping before "by", and the prefixes of a chat speaker label. Regex alternations, matched
case-insensitively, in the languages of the scrub corpus."""

from __future__ import annotations

GREETING = (
    r"(?i:dear|hi|hello|hey|hiya|morning|good morning|good afternoon|good evening|thanks|thank you|many thanks|"
    r"cheers|olá|ola|oi|hola|buenos días|bonjour|salut|hallo|ciao|liebe|lieber|sehr geehrte|sehr geehrter|"
    r"estimado|estimada|querido|querida|caro|cara|beste|hej|hei|hoi|moi|kære|merhaba|salam|assalamu alaikum|namaste|sawasdee)"
)
SIGN_OFF = (
    r"(?i:regards|best regards|kind regards|warm regards|warmest regards|many thanks|best wishes|best|sincerely|"
    r"yours sincerely|yours faithfully|yours truly|cheers|thanks|thank you|take care|all the best|respectfully|"
    r"mit freundlichen grüßen|mit freundlichen grüssen|viele grüße|beste grüße|liebe grüße|saludos|un saludo|"
    r"atentamente|cordialement|bien à vous|cumprimentos|atenciosamente|abraços|obrigado|obrigada|"
    r"met vriendelijke groet|groeten|groet|groetjes|hälsningar|terveisin|pozdrowienia|s pozdravem|"
    r"cordiali saluti|distinti saluti|med vänlig hälsning|vänliga hälsningar|"
    r"med venlig hilsen|hilsen|pozdrawiam|z poważaniem|saygılarımla|terima kasih|salam|regards from)"
)
ROLE = (
    r"(?i:driver|neighbour|neighbor|secretary|customer|client|patient|claimant|policyholder|tenant|landlord|"
    r"applicant|candidate|employee|colleague|manager|supervisor|doctor|nurse|agent|rep|technician|engineer|student|"
    r"member|resident|caller|passenger|guest|recipient|witness|lead|director|officer|assistant|contractor|courier|"
    r"buyer|requester|reporter|assignee|approver|signatory|guardian|mother|father|son|daughter|wife|husband|"
    r"brother|sister|friend|tutor|teacher|coach|adjuster|investigator|handler|advisor|adviser|consultant|"
    r"representative|attorney|lawyer|solicitor|notary|pharmacist|surgeon|dentist|therapist|counsellor|counselor|"
    r"interviewer|recruiter|trainee|intern|volunteer|owner|founder|ceo|cfo|cto|coo|vp|chair|chairman|president)"
)
# Relatives and neighbours: what follows is a person ("my wife Golnaz", "Neighbour Mwangi").
KIN = (
    r"(?:(?i:my|his|her|their|your)[ \t]+(?i:partner|friend|colleague|boss|flatmate|roommate)|(?i:wife|husband|son|"
    r"daughter|mother|father|brother|sister|neighbour|neighbor|grandmother|grandfather|grandson|granddaughter|aunt|"
    r"uncle|cousin|nephew|niece|fiancée|fiancee|fiancé|fiance|girlfriend|boyfriend|stepson|stepdaughter)|"
    # German, French, Spanish, Portuguese, Italian and Dutch: "meine Partnerin Aino", "mon mari Jules"
    r"(?i:meine|mein|meinem|meiner|ma|mon|mi|minha|meu|mia|mio|mijn)[ \t]+(?i:frau|mann|ehemann|ehefrau|partnerin|"
    r"partner|tochter|sohn|mutter|vater|schwester|bruder|freundin|freund|kollegin|kollege|nachbarin|nachbar|femme|mari|"
    r"fille|fils|mère|père|sœur|soeur|frère|compagne|compagnon|voisine|voisin|collègue|esposa|esposo|marido|mujer|hija|"
    r"hijo|madre|padre|hermana|hermano|pareja|vecina|vecino|compañera|compañero|mulher|filha|filho|mãe|pai|irmã|irmão|"
    r"vizinha|vizinho|colega|moglie|marito|figlia|figlio|sorella|fratello|compagna|compagno|vicina|vicino|collega|vrouw|"
    r"man|dochter|zoon|moeder|vader|zus|broer|buurvrouw|buurman))"
)
KIN_POSSESSIVES = frozenset("my his her their your meine mein meinem meiner ma mon mi minha meu mia mio mijn".split())
# A speaker introducing themself ("I'm Olumide,", "Soy Diego de …", "my name is Grace").
INTRO = (
    r"(?i:i'm|i’m|i am|my name is|my name's|this is|soy|me llamo|je suis|je m'appelle|ich bin|ich heiße|"
    r"mi chiamo|eu sou|meu nome é|jeg er|ik ben)"
)
INTRO_END = r"(?=[ \t]*(?:[,.!;)\n]|$)|[ \t]+(?i:from|here|with|at|and|of|de|da|del|von|van|speaking)\b)"
# Words after which a full name (two words or more) is a person ("signed by Eilidh MacLeod", "to Priyanka Ramachandran").
PREPOSITION = (
    r"(?i:by|from|to|with|for|cc|ask|asked|told|tell|call|called|emailed|contact|contacted|ping|pinged|met|per|"
    r"under|via|thanks to)"
)
# A verb of record-keeping before "by": who signed, reported or approved is a person ("Reported by: Bartosz Wiśniewski").
DONE_BY = (
    r"(?i:signed|countersigned|reported|prepared|approved|reviewed|written|submitted|raised|logged|authored|noted|"
    r"requested|created|updated|edited|assigned|witnessed|completed|checked|verified|handled|escalated|note|comment|"
    r"notes|comments|sign-off|signoff)"
)
SPEAKER_PREFIX = r"(?:\[[^\]\n]{1,32}\][ \t]*|\d{1,2}:\d{2}(?::\d{2})?[ \t]+|[-*>][ \t]+)?"

# Words of place names ("Santa Clara", "Saint-Germain", "Fort Worth"), never of a person's name.
PLACE_PREFIXES = frozenset(
    "san santa santo sao saint sainte sankt st ste fort mount mt lake port cape porto puerto".split()
)
# Words that open a sentence, never a name ("Customer: My ETH withdrawal …").
DETERMINERS = frozenset("my our your his her their its the this that these those a an".split())
