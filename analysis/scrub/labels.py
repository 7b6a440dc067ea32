"""Field labels that say what a value is: ``"signatory": …``, ``DOB:``, a ``passport`` column.

:data:`LABELS` maps a normalized label (lower case, words split on ``_ - .`` and camelCase) to
the entity its value holds and whether the label alone is enough (*strong*) or the value must
also look like one by itself (*weak*: a ``name`` key holds product names as often as people's).
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple


class Label(NamedTuple):
    entity: str
    strong: bool


def _labels(entity: str, strong: bool, words: str) -> dict[str, Label]:
    return {word.strip(): Label(entity, strong) for word in words.split("|") if word.strip()}


# Labels of a list of people, one name after another ("Present: Aroha Te Whare (chair), Rangi Paewai"):
# minutes, meeting notes and rosters.
LIST_LABELS = frozenset(
    word.strip()
    for word in """present|attendees|attendance|in attendance|attending|apologies|apologies received|absent|regrets|
    invitees|participants|panellists|panelists|members present|also present|interviewers""".split("|")
)

LABELS: dict[str, Label] = {
    **_labels(
        "PERSON",
        True,
        """full name|fullname|first name|firstname|first names|given name|given names|givenname|last name|lastname|
        surname|surnames|family name|middle name|maiden name|legal name|preferred name|display name|displayname|
        name on card|name on account|account holder|account holder name|cardholder|card holder|cardholder name|
        holder name|signatory|signed by|signer|attn|attention|contact name|contact person|customer name|client name|
        patient name|patient|employee name|passenger|passenger name|guest name|traveller|traveler|traveller name|
        beneficiary|beneficiary name|payee name|recipient name|sender name|agent name|requester name|requester|
        requestor|requested by|approved by|approver|submitted by|prepared by|reviewed by|authorised by|authorized by|
        referred by|referrer|assignee|assigned agent|assigned to|reporter|candidate|candidate name|applicant|
        applicant name|tenant|landlord|policyholder|policy holder|insured|insured name|claimant|claimant name|
        guardian|spouse|next of kin|emergency contact|witness|driver name|doctor|physician|gp|prescriber|nurse|
        buddy|recruiter|interviewer|caller|subscriber name|debtor name|grantor|grantee|student name|
        member name|parent name|mother|father|employee|contact|signature|display signature|participants|participant|
        persons involved|manager|line manager|supervisor|owner name|user name|customer|resident|recipient|
        given|family|pilot|technician|surveyor|inspector|electrician|mechanic|foreman|paramedic|"""
        + "|".join(LIST_LABELS),
    ),
    **_labels(
        "PERSON",
        False,
        "name|names|owner|agent|user|author|from|to|cc|driver|member|holder|buyer|seller|host|lead|text|first|middle|"
        "last|middle names|initials",
    ),
    **_labels(
        "DATE_OF_BIRTH",
        True,
        """dob|d o b|date of birth|birth date|birthdate|birthday|born|born on|geburtsdatum|geb|geboren|
        fecha de nacimiento|data de nascimento|date de naissance|data di nascita|doğum tarihi|dogum tarihi|
        fødselsdato|födelsedatum|geboortedatum|data urodzenia""",
    ),
    **_labels(
        "NATIONAL_ID",
        True,
        """ssn|social security|social security number|social security no|sin|social insurance number|nin|
        ni number|ni no|nino|national insurance|national insurance number|national id|national id number|
        national identity number|id number|id no|id card|identity card|identity card no|identity number|
        dni|nie|nif|cpf|rg|curp|rfc|pesel|bsn|burgerservicenummer|codice fiscale|amka|afm|tin|tfn|tax file number|
        passport|passport no|passport number|passport num|nik|ktp|nric|fin|hkid|aadhaar|aadhar|kimlik|
        kimlik no|t c kimlik no|tc kimlik no|emirates id|resident id|resident registration number|rrn|my number|
        philsys|philsys number|medicare|medicare number|medicare no|nhs|nhs no|nhs number|health card|
        health card number|driver licence|driver license|drivers license|driving licence|licence number|
        license number|dl number|personnummer|henkilötunnus|cnp|oib|egn|jmbg|steuer id|steuer-id|
        steueridentifikationsnummer|tax registration|personal id|matrikelnummer|student id|national id no|ppsn|
        pps number|pps no|personal public service number""",
    ),
    **_labels(
        "PHONE_NUMBER",
        True,
        """phone|phone number|phone no|tel|telephone|mobile|mobile number|mobile no|cell|cell phone|cellphone|
        msisdn|fax|whatsapp|contact number|contact phone|home phone|work phone|personal phone|sms|handy|telefon|
        teléfono|telefone|telefoon|celular|móvil|movil|휴대폰|휴대전화|핸드폰|전화|전화번호|연락처|電話|電話番号|携帯|手机|电话""",
    ),
    **_labels(
        "ADDRESS",
        True,
        """address|home address|home addr|addr|street address|postal address|mailing address|residential address|
        current address|permanent address|registered address|billing address|shipping address|delivery address|
        correspondence address|address line|address line 1|line1|street|adres|adresse|dirección|direccion|
        endereço|endereco|indirizzo|anschrift|wohnadresse|domicilio|residence""",
    ),
}

# Words before ``name`` (or ``family``, ``owner``) that make it the name of a thing, not of a person.
_THINGS = frozenset(
    """account company business org organisation organization firm entity legal product products brand vendor
    supplier merchant store shop site project opportunity opp deal file host hostname service app application team
    department dept plan item sku model device server cluster bucket database db table column field event campaign
    program programme course module unit branch bank carrier airline hotel venue property building facility
    warehouse location city country region street trade partner fund portfolio asset instrument security issuer
    manufacturer maker distributor reseller channel platform tool package library repo repository job task
    queue topic stream pipeline workflow step stage metric feature flag policy rule role group tenant_org
    domain network region zone route lane fleet vehicle vessel ship flight drug medication generic""".split()
)

_SIGNED = frozenset({"signed", "countersigned", "signature", "witnessed"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SPLIT = re.compile(r"[\s_\-./:#]+")


@functools.lru_cache(maxsize=8192)
def label_of(key: str) -> Label | None:
    """The label a field key names (``"home_address"``, ``"Date of birth"``, ``"birthDate"``), or None.

    The whole key is tried first, then its trailing words ("Debtor DNI", "Subscriber name"),
    then its leading words ("Mobile number to port").
    """
    words = _key_words(key)
    if not words or len(words) > 7:
        return None
    if len(words) > 2 and words[0] in _SIGNED and words[1] in ("for", "on"):
        return Label("PERSON", True)  # "Signed for the Printer", "Signed on behalf of the Lender": a signer
    for start in range(len(words)):
        found = LABELS.get(" ".join(words[start:]))
        if found is not None and found.entity == "PERSON" and _THINGS.intersection(words[:start]):
            return None  # "Account Name", "Product Family", "Hotel name": the name of a thing
        if found is not None and found.entity == "PERSON" and words[0] in _SIGNED:
            return Label("PERSON", True)  # "Signed for the Seller": whoever signs is named
        if found is not None:
            return found if start == 0 or found.strong or found.entity == "PERSON" else None
    for end in range(len(words) - 1, 0, -1):
        found = LABELS.get(" ".join(words[:end]))
        if found is not None and found.strong and found.entity != "PERSON":
            return found
    return _plural_person_label(words)  # "Tenants", "Signatories"


def is_list_label(key: str) -> bool:
    """Whether ``key`` labels a list of people (``Present``, ``Apologies``, ``attendees``), or is the
    plural of a person's label (``Tenants``, ``Signatories``, ``Guests``)."""
    words = _key_words(key)
    return " ".join(words) in LIST_LABELS or _plural_person_label(words) is not None


def _plural_person_label(words: list[str]) -> Label | None:
    """The person's label whose plural ``words`` are ("signatories" -> "signatory"), or None."""
    last = words[-1] if words else ""
    if last.endswith("ies") and len(last) > 4:
        singular = [*words[:-1], last[:-3] + "y"]
    elif last.endswith("s") and not last.endswith("ss") and len(last) > 3:
        singular = [*words[:-1], last[:-1]]
    else:
        return None
    label = LABELS.get(" ".join(singular))
    return label if label is not None and label.entity == "PERSON" else None


def _key_words(key: str) -> list[str]:
    """A field key's words, lower case, split on ``_ - . : # /``, spaces and camelCase."""
    return [w for w in _SPLIT.split(_CAMEL.sub(" ", key).lower()) if w]
