"""Words the field, name and address detectors share: name shapes, honorifics, business words.

Pure data and :mod:`re`. Python's ``re`` has no ``\\p{Lu}``, so the upper-case letters of the
Latin, Greek and Cyrillic blocks are listed once here (``UPPER``) and every name pattern is
built from them.
"""

from __future__ import annotations

import re

_UPPER_RANGES = ((0x41, 0x5B), (0xC0, 0x250), (0x370, 0x530), (0x1E00, 0x1F00))
UPPER = "".join(chr(c) for low, high in _UPPER_RANGES for c in range(low, high) if chr(c).isupper())
U = f"[{re.escape(UPPER)}]"
LETTER = r"[^\W\d_]"
# A name word: capitalized or all capitals, inner hyphens and apostrophes ("Ní", "O'Donnell",
# "Zielińska-Nowak", "Al-Farsi", "Seo-yeon", "MacLeod").
NAME_WORD = rf"{U}{LETTER}*(?:['’\-]{LETTER}+)*(?!\w)"
INITIAL = rf"{U}\.(?:\s?{U}\.)*"
PARTICLES = frozenset(
    "de del della dei der den di da das dos do du la le les el al bin bint binti ibn van von zu zum ter ten "
    "af av i y e ní nic ó ua mac mc st. st".split()
)
_PARTICLE = r"(?:de|del|della|dei|der|den|di|da|das|dos|do|du|la|le|el|al|Al|El|bin|bint|binti|ibn|van|von|zu|ter|ten|af|av|i|y|e|Ní|Nic|Ó|Ua)"
# One person's name as written: words, particles between them, initials ("J. R. Okafor").
NAME_SEQ = rf"(?:{INITIAL}\s?)?{NAME_WORD}(?:(?:[ \t]|[ \t]?-[ \t]?)(?:{_PARTICLE}[ \t]+){{0,2}}(?:{NAME_WORD}|{U}\.(?!\w))){{0,5}}"
NAME_SEQ_RE = re.compile(NAME_SEQ)
NAME_BOUNDARY = frozenset("@./#$%&<\\-_")

HONORIFICS = (
    r"Mr|Mrs|Ms|Miss|Mx|Dr|Dra|Prof|Herr|Herrn|Frau|Mme|Mlle|Mevr|Dhr|Sr|Sra|Srta|Sig|Sig\.ra|Dott|Dott\.ssa|"
    r"Sir|Dame|Lady|Rev|Ma|Sayın|Pan|Pani|Bapak|Ibu|Tuan|Puan|Shri|Smt"
)
HONORIFIC_WORDS = frozenset(w.lower() for w in HONORIFICS.replace("\\", "").split("|")) | {"mr.", "dr.", "ms.", "mrs."}
NAME_SUFFIXES = frozenset("jr jr. sr sr. ii iii iv phd md mba esq mr mrs ms miss mstr".split())

# Words that make a capitalized phrase an organization, place, product or document, not a person.
BUSINESS_WORDS = frozenset(
    """
    inc inc. incorporated ltd ltd. limited llc llp lp plc gmbh ag kg sa s.a. sas sarl srl spa s.p.a. bv b.v. nv n.v.
    ab as a/s asa oy oyj kk k.k. pty pte bhd tbk co co. corp corp. corporation company companies group holdings
    holding partners partnership capital bank banking trust fund funds insurance assurance mutual solutions
    services service systems system technologies technology tech software labs lab logistics freight shipping
    transport transit travel airlines airline airways air energy power utilities health healthcare medical
    medicine clinic clinics hospital hospitals pharma pharmacy foods food motors automotive retail stores store shop
    market markets mart media studio studios consulting legal law associates agency ventures industries enterprises
    international global worldwide university college school academy institute foundation council ministry
    department office team teams desk support operations ops center centre museum gallery hotel hotels resort
    restaurant cafe airport station street st road rd avenue ave lane drive way square park tower towers house
    building hall wing bridge city state county province region district plaza mall warehouse depot terminal port
    harbour harbor estate village gardens court cloud networks network data analytics security finance financial
    accounting payments payroll billing sales marketing procurement engineering product products platform api
    portal app apps web mobile online digital electronics devices home homes realty properties property
    construction builders manufacturing works factory mills farm farms brands brand collection edition series
    model pro max plus mini ultra lite air edition agreement contract policy clause schedule annex appendix
    addendum order invoice statement report act regulation directive plan programme program project
    laboratories laboratory labs pavilion surgery ward residences residence apartments suites tutor director
    manager head officer president chief senior junior principal engineer analyst coordinator specialist assistant
    associate consultant administrator advisor adviser supervisor executive representative primary secondary
    partnerships partnership commercial regional premium signature collection heights orthopedics
    review committee board club league association society union federation church cathedral chapel mosque temple
    river lake mountain valley island islands coast beach bay national federal royal republic kingdom
    north south east west northern southern eastern western central upper lower greater metro metropolitan
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday
    """.split()
)

# Companies and brands named after people, and public figures' names used for things: never a
# person by the name rules alone (a field cue such as "signatory:" still wins).
EPONYMOUS_BRANDS = frozenset(
    brand.strip()
    for brand in """
    calvin klein|ralph lauren|tommy hilfiger|hugo boss|paul smith|ted baker|michael kors|kate spade|tory burch|
    vera wang|marc jacobs|tom ford|giorgio armani|stella mccartney|alexander mcqueen|christian dior|
    yves saint laurent|louis vuitton|coco chanel|estée lauder|estee lauder|helena rubinstein|jimmy choo|
    anne klein|levi strauss|karl lagerfeld|vivienne westwood|jean paul gaultier|dolce gabbana|
    morgan stanley|goldman sachs|charles schwab|robert half|merrill lynch|edward jones|raymond james|
    john lewis|harvey nichols|marks spencer|ben jerry|walt disney|dr martens|dr. martens|
    john deere|ben sherman|fred perry|ted lasso|jack daniels|jack daniel|johnnie walker|jim beam|
    martha stewart|tim hortons|mary kay|james hardie|thomas cook|william hill|
    """.split("|")
    if brand.strip()
)
