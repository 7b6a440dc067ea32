"""Values that a label names: ``"dob": "1984-07-02"``, ``Passport: A09847261``, ``patient="Hatice Demir"``,
and the cells of table columns whose header says the same (CSV, TSV, Markdown).

Each detector returns :class:`~handoff.analysis.scrub.findings.Finding` spans of the value only;
the label stays readable. Person names found here are checked by
:func:`handoff.analysis.scrub.people.name_span` (a weak label such as ``name`` needs a value
that looks like a person's name by itself).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from handoff.analysis.scrub.addresses import looks_like_address
from handoff.analysis.scrub.findings import Finding
from handoff.analysis.scrub.gazetteer import english_word
from handoff.analysis.scrub.labels import is_list_label, label_of
from handoff.analysis.scrub.people import name_span, name_spans
from handoff.analysis.scrub.windows import windowed

_DOB_KEYWORDS = (
    "dob",
    "b.",
    "d.o.b",
    "birth",
    "born",
    "geb",
    "nacimiento",
    "nascimento",
    "nasci",
    "naissance",
    "née",
    "né le",
    "nascita",
    "doğum",
    "dogum",
    "fødsel",
    "födelse",
    "geboorte",
    "urodzenia",
    "urodzon",
    "nato ",
    "nata ",
    "nac.",
    "geboren",
    "рожд",
    "生年月日",
    "出生",
    "生日",
    "생년월일",
    "lahir",
    "ngày sinh",
    "fecha nac",
    "f. nac",
    "naiss",
)
_ID_KEYWORDS = (
    "ssn",
    "ghana",
    "huduma",
    "omang",
    "nrc",
    "sozialvers",
    "identifikations",
    "idnr",
    "curité",
    "curite",
    "nir",
    "insee",
    "burgerservice",
    "sofi",
    "citizen",
    "cédula",
    "cedula",
    "documento",
    "itin",
    "ausweis",
    "carte d",
    "pps",
    "personal public",
    "ird ",
    "nhi",
    "sv-",
    "ahv",
    "avs",
    "tax id",
    "taxpayer",
    "mero de identifi",
    "uidai",
    "social",
    "sin",
    "nin",
    "ni ",
    "ni_",
    "nino",
    "insurance",
    "national",
    "id ",
    "id:",
    "id_",
    "identity",
    "dni",
    "nie",
    "nif",
    "cpf",
    "curp",
    "rfc",
    "pesel",
    "bsn",
    "fiscale",
    "amka",
    "afm",
    "tfn",
    "tax",
    "passport",
    "nik",
    "ktp",
    "nric",
    "hkid",
    "aadha",
    "kimlik",
    "emirates",
    "resident",
    "my number",
    "philsys",
    "medicare",
    "nhs",
    "health card",
    "licen",
    "personnummer",
    "henkilö",
    "cnp",
    "oib",
    "egn",
    "jmbg",
    "steuer",
    "matrikel",
    "personal id",
    "prawa jazdy",
    "dowod",
    "dowód",
    "führerschein",
    "fuhrerschein",
    "permis de conduire",
    "de conducir",
    "condução",
    "motorista",
    "cnh",
    "patente",
    "rijbewijs",
    "ajokortti",
    "körkort",
    "førerkort",
    "kørekort",
    "ehliyet",
    "посвідчення",
    "водительское",
    "паспорт",
)
_PHONE_KEYWORDS = (
    "휴대폰",
    "휴대전화",
    "핸드폰",
    "전화",
    "연락처",
    "電話",
    "携帯",
    "手机",
    "电话",
    "phone",
    "tel",
    "mobile",
    "cell",
    "msisdn",
    "fax",
    "whatsapp",
    "handy",
    "telefon",
    "teléfono",
    "telefone",
    "celular",
    "call",
    "ring",
    "dial",
    "sms",
    "text me",
    "reach me",
    "móvil",
    "movil",
    "fijo",
    "tlf",
    "puhelin",
    "mob",
    "numer",
    "número",
)
_ADDRESS_KEYWORDS = (
    "address",
    "addr",
    "adres",
    "dirección",
    "direccion",
    "endereço",
    "indirizzo",
    "anschrift",
)
_NAME_KEYWORDS = (
    "name",
    "present",
    "attend",
    "apologies",
    "absent",
    "regrets",
    "invitees",
    "panelists",
    "panellists",
    "interviewers",
    "signatory",
    "signed",
    "signer",
    "attn",
    "attention",
    "contact",
    "customer",
    "client",
    "patient",
    "employee",
    "passenger",
    "guest",
    "travel",
    "beneficiary",
    "recipient",
    "agent",
    "requester",
    "requestor",
    "requested",
    "approved",
    "approver",
    "submitted",
    "prepared",
    "reviewed",
    "authori",
    "referred",
    "referrer",
    "assignee",
    "assigned",
    "reporter",
    "candidate",
    "applicant",
    "tenant",
    "landlord",
    "policyholder",
    "holder",
    "insured",
    "claimant",
    "guardian",
    "spouse",
    "kin",
    "witness",
    "driver",
    "doctor",
    "physician",
    "gp",
    "prescriber",
    "nurse",
    "buddy",
    "recruiter",
    "interviewer",
    "caller",
    "subscriber",
    "debtor",
    "grantor",
    "grantee",
    "student",
    "member",
    "parent",
    "mother",
    "father",
    "signature",
    "participants",
    "involved",
    "manager",
    "supervisor",
    "owner",
    "user",
    "resident",
    "author",
    "buyer",
    "seller",
)

_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|janeiro|fevereiro|março|marco|abril|maio|junho|julho|agosto|"
    r"setembro|outubro|novembro|dezembro|enero|febrero|marzo|mayo|junio|julio|septiembre|octubre|noviembre|"
    r"diciembre|januar|februar|märz|mai|juni|juli|oktober|dezember|janvier|février|mars|avril|juin|juillet|août|"
    r"septembre|octobre|novembre|décembre"
)
DATE = (
    rf"(?:\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}|\d{{1,2}}[-/.]\d{{1,2}}[-/.]\d{{2,4}}"
    rf"|\d{{1,2}}(?:st|nd|rd|th|er|re|º|ª)?\.?\s(?:de\s|of\s)?(?i:{_MONTHS})\.?,?\s(?:de\s)?\d{{4}}"
    rf"|\d{{1,2}}-(?i:{_MONTHS})-\d{{2,4}}"
    rf"|(?i:{_MONTHS})\.?\s\d{{1,2}}(?:st|nd|rd|th)?,?\s\d{{4}}"
    rf"|\d{{4}}\s?年\s?\d{{1,2}}\s?月\s?\d{{1,2}}\s?日|\d{{4}}년\s?\d{{1,2}}월\s?\d{{1,2}}일"
    rf"|\d{{4}}\.\s\d{{1,2}}\.\s\d{{1,2}}\.?"
    rf"|(?:19|20)\d{{2}}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"
    rf"|(?i:{_MONTHS})\.?,?\s\d{{4}})"
)
_DOB = re.compile(
    r"(?i:\b(?:dob|d\.o\.b\.?|(?<![\w.(])b\.(?=[ \t]*\d)|date[ _-]?of[ _-]?birth|birth[ _-]?date|birthday|born(?:[ _]on)?|geb\.|geboren|"
    r"geburtsdatum|geburtstag|fecha de nacimiento|fecha de nac\.?|f\. ?nac\.?|fecha nac\.?|data de nascimento|"
    r"nascid[oa] em|nasci em|nacid[oa] el|date de naissance|date de naiss\.?|née? le|data di nascita|nat[oa] il|"
    r"nat[oa] a [^\n\d]{1,30}? il|doğum tarihi|fødselsdato|födelsedatum|geboortedatum|geboren op|data urodzenia|"
    r"urodzon[ya]|дата рождения|tanggal lahir|ngày sinh)|生年月日|出生日期|出生于|生日|생년월일)"
    r"[^\n\d]{0,60}?(?<![\w])(" + DATE + r")(?![\w])"
)
_ID_LABEL = (
    r"ssn|social security(?: number| no\.?)?|sin|nin|ni (?:number|no\.?)|ni_number|nino|national insurance(?: number| no\.?)?|"
    r"national[ _]id(?:entity)?(?: number| no\.?| card)?|id (?:number|no\.?|card(?: no\.?)?)|identity (?:card|number)(?: no\.?)?|"
    r"dni|nie|nif|cpf|curp|rfc|pesel|bsn|codice[ _]fiscale|amka|afm|tfn|tax file number|passport(?:[ _](?:no\.?|number|num))?|"
    r"nik|ktp|nric|hkid|aadhaar|aadhar|kimlik(?: no)?|emirates id|resident[ _]id|resident registration number|my number|"
    r"philsys(?: number)?|medicare(?: number| no\.?)?|nhs (?:no\.?|number)|health card(?: number)?|"
    r"driv(?:er'?s?|ing)[ _]licen[cs]e(?: number| no\.?)?|licen[cs]e (?:number|no\.?)|personnummer|henkilötunnus|"
    r"cnp|oib|egn|jmbg|steuer-?id|tax registration|matrikelnummer|personal id|social insurance(?: number| no\.?)?|"
    r"sozialversicherungsnummer|(?:steuer-?)?identifikationsnummer|steuerliche identifikationsnummer|idnr|"
    r"(?:num[ée]ro de |n[°º] de )?s[ée]curit[ée] sociale|nir|insee|burgerservicenummer|sofinummer|"
    r"citizen service number|c[ée]dula(?: de identidad| de ciudadan[ií]a)?|documento (?:de identidad|nacional)|"
    r"itin|personalausweis(?:nummer)?|ausweisnummer|carte d'identit[ée]|pps(?:n|[ _]number|[ _]no\.?)|"
    r"personal public service number|ird number|nhi(?: number)?|sv-nummer|ahv(?:-nr\.?| number)?|avs|"
    r"tax id|taxpayer id|n[úu]mero de identificaci[óo]n|uidai|"
    r"ghana ?card(?: (?:number|no\.?|pin))?|huduma(?: namba| number)?|omang(?: number| no\.?)?|nrc(?: number| no\.?)?|"
    # driving licences and identity cards in other languages: "Nr prawa jazdy", "Führerscheinnummer", "permis de conduire"
    r"(?:nr |numer )?prawa jazdy|(?:nr |numer )?dowodu(?: osobistego)?|dowód osobisty|führerschein(?:nummer|-nr\.?)?|"
    r"permis de conduire|carnet de conducir|licencia de conducir|carta de condução|carteira de motorista|cnh|"
    r"patente di guida|rijbewijs(?:nummer)?|ajokortti|körkort(?:snummer)?|førerkort|kørekort|ehliyet(?: no)?|"
    r"посвідчення водія|водительское удостоверение|паспорт"
)
_ID = re.compile(
    r"(?i:(?<![\w-])(?:"
    + _ID_LABEL
    + r")(?:_[a-z]{2,3})?)(?![\w-])[^\n\d]{0,30}?(?<![\w])((?:[A-Z]{1,6}[ \-]?)?\d[A-Z0-9]*(?:[ .\-/][A-Z0-9]+){0,7})(?![\w])"
)
_PHONE = re.compile(
    r"(?i:\b(?:phone|tel|telephone|mobile|cell|msisdn|fax|whatsapp|handy|telefon\w{0,3}|teléfono|telefone|celular|"
    r"call|ring|dial|sms|text me|reach me|móvil|movil|fijo|tlf|puhelin|mob|telefoon|numer|número|"
    r"휴대폰|휴대전화|핸드폰|전화번호|전화|연락처|電話番号|電話|携帯|手机|电话)\b)"
    r"[^\n\d+@]{0,30}?(?<![\w+\-])(\+?\(?\d[\d \-.()]{5,20}\d)(?![\w])"
)
_ADDRESS_FIELD = re.compile(
    r"(?i:\b(?:(?:home|street|postal|mailing|residential|current|permanent|registered|billing|shipping|delivery|"
    r"correspondence)[ _]?)?(?:address|addr|adres|adresse|dirección|direccion|endereço|indirizzo|anschrift))"
    r"(?:\"\s*:\s*\"|\s*[:=]\s*\"?|\s+)([^\"\n]{8,160})"
)
_JSON_FIELD = re.compile(r'"([A-Za-z][\w .\-]{0,40})"\s*:\s*\[?\s*"((?:[^"\\\n]|\\.){1,200})"')
_KV_FIELD = re.compile(r"(?<![\w\"'])([A-Za-z][\w .\-/]{0,40}?)(?:\s*\(([^)\n]{1,40})\))?\s*[:=]\s*[\"']?(?=[^\s\"'])")


def dates_of_birth(text: str, lower: str) -> Iterator[Finding]:
    """Dates after a date-of-birth label ("DOB: 1984-07-02", "born 17.08.2001", "nasci em 3 de maio de 1969")."""
    for match in windowed(_DOB, text, lower, _DOB_KEYWORDS, before=20, after=90, word_start=True):
        yield _finding("DATE_OF_BIRTH", match, 1, 0.9, "DateOfBirthRecognizer")


def national_ids(text: str, lower: str) -> Iterator[Finding]:
    """Identity numbers after their label ("NI number: QQ 12 34 56 C", "DNI 12345678Z", "passport": "G61827394")."""
    for match in windowed(_ID, text, lower, _ID_KEYWORDS, before=12, after=90, word_start=True):
        value = _trim_id(match.group(1))
        if value and sum(c.isdigit() for c in value) >= 5 and not re.fullmatch(DATE, value):
            start = match.start(1)
            yield Finding(
                "NATIONAL_ID",
                start,
                start + len(value),
                0.9,
                "NationalIdRecognizer",
                value,
            )


def _trim_id(value: str) -> str:
    """Drop trailing words that are not part of the number ("AK 482915 ISSUED" -> "AK 482915")."""
    groups = re.split(r"(?<=[ .\-/])", value)
    seen_digit = False
    for index, group in enumerate(groups):
        word = group.rstrip(" .-/")
        if seen_digit and word.isalpha() and len(word) > 2:
            groups = groups[:index]
            break
        seen_digit = seen_digit or any(c.isdigit() for c in word)
    return "".join(groups).rstrip(" .-/")


def labelled_phones(text: str, lower: str) -> Iterator[Finding]:
    """Numbers after a phone label ("mobile 512 304 778", "Mobile number to port: 010-4827-3391")."""
    for match in windowed(_PHONE, text, lower, _PHONE_KEYWORDS, before=2, after=70, word_start=True):
        digits = sum(c.isdigit() for c in match.group(1))
        if 7 <= digits <= 15 and not re.fullmatch(DATE, match.group(1)):
            yield _finding("PHONE_NUMBER", match, 1, 0.85, "LabelledPhoneRecognizer")


# A sentence ends the address in a field: "…, 03940 Ciudad de México, CDMX. RFC …" (not "Av. Insurgentes").
_SENTENCE_END = re.compile(r"(?:(?<=[a-zà-ÿ]{4})|(?<=[A-Z]{3}))\.[ \t]+(?=[A-Z])")


def labelled_addresses(text: str, lower: str) -> Iterator[Finding]:
    """Values of address fields that hold a number and read as an address ("home_address": "27 Mauldeth Road West, …")."""
    for match in windowed(_ADDRESS_FIELD, text, lower, _ADDRESS_KEYWORDS, before=40, after=200, word_start=True):
        value = _SENTENCE_END.split(match.group(1), maxsplit=1)[0].rstrip(" ,;|")
        if any(c.isdigit() for c in value) and looks_like_address(value):
            start = match.start(1)
            yield Finding(
                "ADDRESS",
                start,
                start + len(value),
                0.85,
                "AddressFieldRecognizer",
                value,
            )


def labelled_names(text: str, lower: str) -> Iterator[Finding]:
    """Person names in fields whose key says so: JSON (``"signatory": "…"``) and ``key: value`` / ``key=value``."""
    for match in _JSON_FIELD.finditer(text):
        label = label_of(match.group(1))
        if label is not None and label.entity == "PERSON":
            for span in name_spans(match.group(2), strong=label.strong):
                yield _span_finding(text, match.start(2) + span[0], match.start(2) + span[1], "NameFieldRecognizer")
    for match in windowed(_KV_FIELD, text, lower, _NAME_KEYWORDS, before=42, after=50, word_start=True):
        label = label_of(match.group(1)) or (label_of(match.group(2)) if match.group(2) else None)
        if label is not None and label.entity == "PERSON":
            line_end = text.find("\n", match.end())
            value = text[match.end() : line_end if line_end >= 0 else len(text)]
            if is_list_label(match.group(1)):
                yield from _listed_names(text, match.end(), value)
                continue
            for span in name_spans(value, strong=label.strong):
                yield _span_finding(text, match.end() + span[0], match.end() + span[1], "NameFieldRecognizer")


# One item of a list of people: up to a comma, semicolon, "and" or "&" outside brackets, or the sentence's end.
_LIST_ITEM = re.compile(r"(?:[^,;()&.\n]|\([^()\n]*\)|\.(?![ \t]|$))+")
_LIST_JOINER = re.compile(r"^[ \t]*(?:and|&|und|et|y|e)[ \t]+", re.IGNORECASE)


def _listed_names(text: str, offset: int, value: str) -> Iterator[Finding]:
    """Each name in the list a list label opens ("Present: Aroha Te Whare (chair), Rangi Paewai and Li Wei.")."""
    end_of_sentence = re.search(r"\.(?=[ \t]+[A-Z0-9]|[ \t]*$)", value)
    value = value[: end_of_sentence.start()] if end_of_sentence else value
    for item in _LIST_ITEM.finditer(value):
        joiner = _LIST_JOINER.match(item.group())
        start = item.start() + (joiner.end() if joiner else 0)
        for part in re.split(r"[ \t]+(?:and|&)[ \t]+", value[start : item.end()]):
            span = name_span(part, strong=True)
            if span is None or _role_title(part[span[0] : span[1]]):
                continue
            at = offset + start + value[start : item.end()].find(part)
            yield _span_finding(text, at + span[0], at + span[1], "NameFieldRecognizer")


def _role_title(phrase: str) -> bool:
    """Whether every word of ``phrase`` is an English word ("Vice-President") or, beside one, an
    acronym ("PCC Secretary"), so it names a role."""
    words = [w for w in re.split(r"[\s\-]+", phrase) if w]
    english = [english_word(w) for w in words]
    return any(english) and all(e or (w.isupper() and 2 <= len(w) <= 5) for w, e in zip(words, english))


def _finding(entity: str, match: re.Match[str], group: int, score: float, recognizer: str) -> Finding:
    return Finding(
        entity,
        match.start(group),
        match.end(group),
        score,
        recognizer,
        match.group(group),
    )


def _span_finding(text: str, start: int, end: int, recognizer: str) -> Finding:
    return Finding("PERSON", start, end, 0.85, recognizer, text[start:end])
