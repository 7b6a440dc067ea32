"""The words that introduce a person's name in text (see :mod:`~handoff.analysis.scrub.people`):
greetings, sign-offs, role words, relatives, self-introductions, prepositions and verbs of
record-keeping before "by", and the prefixes of a chat speaker label. Regex alternations, matched
case-insensitively, in the languages of the scrub corpus."""

from __future__ import annotations

import re

from handoff.analysis.scrub.vocabulary import HONORIFICS, LETTER, NAME_SEQ, NAME_WORD, U

GREETING = (
    r"(?i:dear|hi|hello|hey|hiya|g'day|g’day|morning|good morning|good afternoon|good evening|thanks|thank you|many thanks|"
    r"cheers|olá|ola|oi|hola|buenos días|bonjour|salut|hallo|ciao|liebe|lieber|sehr geehrte|sehr geehrter|"
    r"estimado|estimada|querido|querida|caro|cara|beste|hej|hei|hoi|moi|kære|merhaba|salam|assalamu alaikum|namaste|sawasdee|"
    r"cześć|witam|dzień dobry|szanowny panie|szanowna pani|szanowni|ahoj|dobrý den|buongiorno|bom dia|boa tarde|"
    r"buenas tardes|buenas|servus|moin|grüß dich|grüezi|hallå|kia ora|selam|привіт|вітаю|добрий день|здравствуйте|привет)"
)
SIGN_OFF = (
    r"(?i:regards|best regards|kind regards|warm regards|warmest regards|many thanks|best wishes|best|sincerely|"
    r"yours sincerely|yours faithfully|yours truly|cheers|thanks|thank you|take care|all the best|respectfully|"
    r"mit freundlichen grüßen|mit freundlichen grüssen|viele grüße|beste grüße|liebe grüße|saludos|un saludo|"
    r"atentamente|cordialement|bien à vous|cumprimentos|atenciosamente|abraços|obrigado|obrigada|"
    r"met vriendelijke groet|groeten|groet|groetjes|hälsningar|terveisin|pozdrowienia|s pozdravem|"
    r"cordiali saluti|distinti saluti|med vänlig hälsning|vänliga hälsningar|"
    r"med venlig hilsen|hilsen|pozdrawiam|z poważaniem|saygılarımla|terima kasih|salam|regards from|"
    r"gracias|muchas gracias|saludos cordiales|un abrazo|abrazos|merci|merci beaucoup|bien cordialement|danke|"
    r"vielen dank|grüße|gruß|grazie|dziękuję|dzięki|teşekkürler|kiitos|tack|takk|tak|ngā mihi|mahalo|"
    r"з повагою|дякую|с уважением|спасибо)"
)
ROLE = (
    r"(?i:driver|neighbour|neighbor|secretary|customer|client|patient|claimant|policyholder|tenant|landlord|"
    r"applicant|candidate|employee|colleague|manager|supervisor|doctor|nurse|agent|rep|technician|engineer|student|"
    r"member|resident|caller|passenger|guest|recipient|witness|lead|director|officer|assistant|contractor|courier|"
    r"buyer|requester|reporter|assignee|approver|signatory|guardian|mother|father|son|daughter|wife|husband|"
    r"brother|sister|friend|tutor|teacher|coach|adjuster|investigator|handler|advisor|adviser|consultant|"
    r"representative|attorney|lawyer|solicitor|notary|pharmacist|surgeon|dentist|therapist|counsellor|counselor|"
    r"interviewer|recruiter|trainee|intern|volunteer|owner|founder|ceo|cfo|cto|coo|vp|chair|chairman|president|"
    r"surveyor|inspector|electrician|plumber|mechanic|foreman|forewoman|paramedic|photographer|translator|"
    r"interpreter|auditor|examiner|dispatcher|receptionist|clerk|pilot)"
)
# Relatives and neighbours: what follows is a person ("my wife Golnaz", "Neighbour Mwangi").
KIN = (
    r"(?:(?i:my|his|her|their|your)[ \t]+(?i:partner|friend|colleague|boss|flatmate|roommate)|(?i:wife|husband|son|"
    r"daughter|mother|father|brother|sister|neighbour|neighbor|grandmother|grandfather|grandson|granddaughter|aunt|"
    r"uncle|cousin|nephew|niece|fiancée|fiancee|fiancé|fiance|girlfriend|boyfriend|stepson|stepdaughter)|"
    # German, French, Spanish, Portuguese, Italian and Dutch: "meine Partnerin Aino", "mon mari Jules"
    r"(?i:meine|mein|meinem|meiner|ihr|ihre|ihrem|ihrer|sein|seine|seinem|seiner|dein|deine|unser|unsere|ma|mon|"
    r"votre|son|sa|ton|ta|mi|su|tu|minha|meu|sua|seu|tua|teu|mia|mio|suo|tuo|mijn|zijn|haar|uw)[ \t]+"
    r"(?i:frau|mann|ehemann|ehefrau|partnerin|"
    r"partner|tochter|sohn|mutter|vater|schwester|bruder|freundin|freund|kollegin|kollege|nachbarin|nachbar|femme|mari|"
    r"fille|fils|mère|père|sœur|soeur|frère|compagne|compagnon|voisine|voisin|collègue|esposa|esposo|marido|mujer|hija|"
    r"hijo|madre|padre|hermana|hermano|pareja|vecina|vecino|compañera|compañero|mulher|filha|filho|mãe|pai|irmã|irmão|"
    r"vizinha|vizinho|colega|moglie|marito|figlia|figlio|sorella|fratello|compagna|compagno|vicina|vicino|collega|vrouw|"
    r"man|dochter|zoon|moeder|vader|zus|broer|buurvrouw|buurman))"
)
KIN_POSSESSIVES = frozenset(
    "my his her their your meine mein meinem meiner ihr ihre ihrem ihrer sein seine seinem seiner dein deine unser "
    "unsere ma mon votre son sa ton ta mi su tu minha meu sua seu tua teu mia mio suo tuo mijn zijn haar uw".split()
)
# A speaker introducing themself ("I'm Olumide,", "Soy Diego de …", "my name is Grace").
INTRO = (
    r"(?i:i'm|i’m|i am|my name is|my name's|this is|soy|me llamo|je suis|je m'appelle|ich bin|ich heiße|"
    r"mi chiamo|eu sou|meu nome é|jeg er|ik ben)"
)
INTRO_END = r"(?=[ \t]*(?:[,.!;)\n]|$)|[ \t]+(?i:from|here|with|at|and|of|de|da|del|von|van|speaking)\b)"
# Words after which a full name (two words or more) is a person ("signed by Eilidh MacLeod", "to Priyanka Ramachandran").
PREPOSITION = (
    r"(?i:by|from|to|with|for|cc|ask|asked|told|tell|call|called|emailed|contact|contacted|ping|pinged|met|per|"
    r"under|via|thanks to|page|paged)"
)
# A verb of record-keeping before "by": who signed, reported or approved is a person ("Reported by: Bartosz Wiśniewski").
DONE_BY = (
    r"(?i:signed|countersigned|reported|prepared|approved|reviewed|written|submitted|raised|logged|authored|noted|"
    r"requested|created|updated|edited|assigned|witnessed|completed|checked|verified|handled|escalated|closed|"
    r"resolved|dispatched|issued|inspected|confirmed|acknowledged|received|note|comment|"
    r"notes|comments|sign-off|signoff)"
)
# A quoted message's header: "On Tue, 3 Mar 2026, Ana Ruiz wrote:", "2026-04-09 10:14 meera iyer wrote:".
WROTE = r"(?i:wrote|writes|schrieb|a écrit|escribió|escreveu|ha scritto|schreef|skrev|kirjoitti|napisał|napisała)"
LOWER_NAME = r"[a-zà-ÿ][a-zà-ÿ'\-]+(?:[ \t][a-zà-ÿ][a-zà-ÿ'\-]+){1,2}"
SPEAKER_PREFIX = r"(?:\[[^\]\n]{1,32}\][ \t]*|\d{1,2}:\d{2}(?::\d{2})?[ \t]+|[-*>][ \t]+)?"

# Words of place names ("Santa Clara", "Saint-Germain", "Fort Worth"), never of a person's name.
PLACE_PREFIXES = frozenset(
    "san santa santo sao saint sainte sankt st ste fort mount mt lake port cape porto puerto".split()
)
# Words that open a sentence, never a name ("Customer: My ETH withdrawal …").
DETERMINERS = frozenset("my our your his her their its the this that these those a an of and for".split())

_NAME = rf"(?P<name>{NAME_SEQ})"
_HANGUL_NAME = r"[\uac00-\ud7af]{2,4}"
_CJK_NAME = r"[\uac00-\ud7af]{2,4}|[\u4e00-\u9fff]{2,4}|[\u3040-\u30ff\u4e00-\u9fff]{2,6}"
# Each cue and the pattern of a name after (or around) it.
CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("honorific", re.compile(rf"(?<![\w])(?:{HONORIFICS})\.?[ \t]+{_NAME}")),
    (
        "greeting",
        re.compile(
            rf"(?:^|(?<=[\s(\"'>]))(?:{GREETING})[ \t,]+{_NAME}(?=[ \t]*(?:[,!.:;)\n—–-]|$))",
            re.MULTILINE,
        ),
    ),
    (
        "sign-off",
        re.compile(
            rf"(?:{SIGN_OFF})[ \t]*[,.!]?[ \t]*\n(?:[ \t]*\n)?[ \t]*(?:[-–—]+[ \t]*)?{_NAME}[ \t]*(?=[,(\n|]|$)"
        ),
    ),
    (
        "sign-off-inline",
        re.compile(rf",[ \t]*{_NAME}[ \t]*[.!]?[ \t]*$", re.MULTILINE),
    ),
    (
        "dash-signature",
        re.compile(rf"(?<=[.!?)])[ \t]+[-–—]{{1,2}}[ \t]*{_NAME}[ \t]*$", re.MULTILINE),
    ),
    (
        "speaker",
        re.compile(
            rf"^{SPEAKER_PREFIX}(?:(?i:agent|customer|caller|client|user|guest|resident|patient|driver|rep|advisor|"
            rf"member|staff|host|nurse|doctor|tech)[ \t]+)?{_NAME}(?:[ \t]*\([^)\n]{{0,40}}\))?"
            rf"(?:[ \t]*\[[^\]\n]{{0,24}}\]|[ \t]+\d{{1,2}}:\d{{2}}(?::\d{{2}})?)?[ \t]*:[ \t]+(?![\d+\-])",
            re.MULTILINE,
        ),
    ),
    (
        "speaker-comma",  # "Otieno, Brian [09:33]: thanks": a chat export's "Surname, Given" and the time
        re.compile(
            rf"^{SPEAKER_PREFIX}(?P<name>{NAME_WORD},[ \t]{NAME_WORD})[ \t]*"
            rf"(?:\[\d{{1,2}}:\d{{2}}(?::\d{{2}})?\]|\(\d{{1,2}}:\d{{2}}\)|\d{{1,2}}:\d{{2}})[ \t]*:?[ \t]",
            re.MULTILINE,
        ),
    ),
    (
        "speaker-time",
        re.compile(rf"^{_NAME}[ \t]{{2,}}\d{{1,2}}:\d{{2}}(?::\d{{2}})?[ \t]", re.MULTILINE),
    ),
    # A name in Hangul, kana or Han as a chat export's speaker ("박지훈  9:25 AM") or a Korean letter's
    # sign-off ("서연 드림", "김민준 올림": "offered by").
    ("cjk-speaker", re.compile(rf"^(?P<name>{_CJK_NAME})[ \t]{{2,}}\d{{1,2}}:\d{{2}}", re.MULTILINE)),
    ("cjk-sign-off", re.compile(rf"^[> \t]*(?P<name>{_HANGUL_NAME})[ \t]*(?:드림|올림)[ \t]*$", re.MULTILINE)),
    (
        "display-name",
        re.compile(rf"(?:^|(?<=[\s,;:(\"]))\"?{_NAME}\"?[ \t]*<[^<>\s@]{{1,64}}@", re.MULTILINE),
    ),
    (
        "role",
        re.compile(rf"(?<![\w-]){ROLE}[ \t]*[,:]?[ \t]+(?:\((?=[^)\n]*\)))?{_NAME}"),
    ),
    ("kin", re.compile(rf"(?<![\w-]){KIN}[ \t]*,?[ \t]+{_NAME}")),
    ("intro", re.compile(rf"(?<![\w-]){INTRO}[ \t]+{_NAME}{INTRO_END}")),
    (
        "here",
        re.compile(
            rf"(?:^|(?<=[.!?,][ \t])|(?<=[.!?][ \t]{{2}})){_NAME}[ \t]+here(?=[ \t]*[,.!:;—–-]|[ \t]+from\b)",
            re.MULTILINE,
        ),
    ),
    ("wrote", re.compile(rf"(?:^|(?<=[\s,]))(?:{_NAME}|(?P<lower>{LOWER_NAME}))[ \t]+{WROTE}[ \t]*:", re.MULTILINE)),
    ("paren-speaker", re.compile(rf"(?<=[\w.][ \t])\({_NAME}\):[ \t]")),
    (
        "name-suffix",
        re.compile(rf"(?<![\w\-])(?P<name>{U}{LETTER}+)-(?:san|sama|kun|chan|sensei|senpai|ssi|nim)(?![\w\-])"),
    ),
)
# Literals every match of a cue contains (lower case; honorifics are matched case-sensitively).
CUE_KEYWORDS: dict[str, tuple[str, ...]] = {
    "cjk-sign-off": ("드림", "올림"),
    "greeting": tuple(w for w in re.sub(r"\(\?i:|\)", "", GREETING).split("|")),
    "sign-off": tuple(w.split()[0] for w in re.sub(r"\(\?i:|\)", "", SIGN_OFF).split("|")),
    "role": tuple(re.sub(r"\(\?i:|\)", "", ROLE).split("|")),
    "kin": tuple(
        w for w in re.sub(r"\(\?:|\(\?i:|\)|\[ \\t\]\+", "|", KIN).split("|") if w and w not in KIN_POSSESSIVES
    ),
    "intro": tuple(re.sub(r"\(\?i:|\)", "", INTRO).split("|")),
    "here": (" here",),
    "paren-speaker": ("):",),
    "wrote": tuple(re.sub(r"\(\?i:|\)", "", WROTE).split("|")),
    "name-suffix": ("-san", "-sama", "-kun", "-chan", "-sensei", "-senpai", "-ssi", "-nim"),
    "display-name": ("<",),
    "dash-signature": (" -", " –", " —", "\t-", "\t–", "\t—"),
}
