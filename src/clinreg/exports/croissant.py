"""`clinreg export croissant`: one Croissant 1.1 JSON-LD description per record, made from the record and the lock.

Each file says what the record cannot fill (`left_out`), and no checksum is ever written that the lock does not
hold: the source files are described as a `FileSet` (mlcroissant requires a checksum on a `FileObject`, and clinreg
knows none for a single source file), and the canonical instances of a mapping become a `FileObject` only where
the lock gives their sha256 for the record's current version. docs/croissant.md explains every field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinreg.core.builderrors import BuildError, RecordProblem
from clinreg.core.model import Dataset, GitHubSource, HubSource, LocalSource, PhysioNetSource, UrlSource
from clinreg.core.specfiles import file_patterns
from clinreg.core.store import Registry
from clinreg.sources.files import infer_format
from clinreg.sources.mirror import folder_name
from clinreg.templating.sandbox import ROW_VARIABLE, InputTemplate
from clinreg.text.safeio import atomic_write_text
from clinreg.text.suggest import closest

CROISSANT_1_1 = "http://mlcommons.org/croissant/1.1"
RAI_1_0 = "http://mlcommons.org/croissant/RAI/1.0"
LOCK_FILE = "clinreg.lock.json"
SUFFIX = ".croissant.json"
# clinreg's own terms (access tier and instructions, and how a Required field was filled where the record does not
# hold it directly): a URN, so that no web page is implied. docs/croissant.md lists them.
CLINREG_NS = "urn:clinreg:"
# The dataset-level properties Croissant 1.1 requires (docs/croissant-spec-1.1.md, "Dataset-level information":
# "Required", and "Modified and Added Properties" for distribution).
REQUIRED = ("@context", "@type", "conformsTo", "description", "license", "name", "url", "creator", "datePublished",
            "distribution")

# The JSON-LD context of Croissant 1.1 (the spec's Appendix 1 and mlcroissant 1.1.1's own), with schema.org over
# https: mlcroissant 1.1.1 reads `http://schema.org/` terms as unknown. `duo` is the vocabulary of the data-use terms.
CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "sc": "https://schema.org/",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "dct": "http://purl.org/dc/terms/",
    "duo": "http://purl.obolibrary.org/obo/DUO_",
    "clinreg": CLINREG_NS,
    "annotation": "cr:annotation",
    "arrayShape": "cr:arrayShape",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "containedIn": "cr:containedIn",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "description": {"@container": "@language"},
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "excludes": "cr:excludes",
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isArray": "cr:isArray",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "name": {"@container": "@language"},
    "parentField": "cr:parentField",
    "path": "cr:path",
    "readLines": "cr:readLines",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sdVersion": "cr:sdVersion",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
    "unArchive": "cr:unArchive",
    "value": "cr:value",
}

DUO_BASE = "http://purl.obolibrary.org/obo/"
# clinreg's access tiers read as Data Use Ontology terms. This is clinreg's interpretation (docs/croissant.md):
# public data under a known licence carries no use restriction beyond its licence; gated data is released to
# approved users only (PhysioNet credentialing, a data use agreement); private data stays with the institution.
DUO_TERMS = {
    "public": [("DUO_0000004", "no restriction")],
    "gated": [("DUO_0000026", "user specific restriction")],
    "private": [("DUO_0000028", "institution specific restriction"), ("DUO_0000026", "user specific restriction")],
}

MEDIA_TYPES = {
    "csv": "text/csv", "tsv": "text/tab-separated-values", "json": "application/json",
    "jsonl": "application/jsonlines", "parquet": "application/x-parquet",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "feather": "application/vnd.apache.arrow.file", "arrow": "application/vnd.apache.arrow.file",
    "text": "text/plain", "lines": "text/plain", "xml": "application/xml",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}

# What no record holds, so no Croissant file can fill it: said once in every file's left_out list.
NEVER_IN_RECORD = (
    "field data types: the record does not type its columns, so every field is declared sc:Text, which may be "
    "wrong for lists, numbers and nested columns",
    "read steps and filters: clinreg's joins, picks, pattern extraction, rendered columns, deduplication and the "
    "mappings' filters and caps have no Croissant equivalent here; each field extracts its column by name from the "
    "files, and the rows a benchmark keeps are those clinreg builds",
    "RAI data collection, annotation, biases, personal and sensitive information, social impact and maintenance "
    "plan: not recorded by clinreg",
)


class CroissantProblem(BuildError):
    """An unknown record, an unreadable lock, or an output file in the way: a usage error."""

    default_code = "CLR984"
    exit_code = 2


class NotDescribable(BuildError):
    """A record for which a Required field cannot be filled honestly: it is not written, and the export names it."""


@dataclass
class CroissantFile:
    """One written description: the record, its file and what it leaves out."""

    dataset: str
    file: str
    left_out: list[str]
    instances_with_sha256: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "file": self.file, "instances_with_sha256": self.instances_with_sha256,
                "left_out": self.left_out}


@dataclass
class CroissantReport:
    output: str
    lock: str | None
    files: list[CroissantFile] = field(default_factory=list)
    not_written: dict[str, str] = field(default_factory=dict)  # record (or file) -> why it has no Croissant file

    def to_dict(self) -> dict[str, Any]:
        return {"output": self.output, "lock": self.lock, "files": [f.to_dict() for f in self.files],
                "not_written": self.not_written}


def export_croissant(
    registry: Registry,
    output: str | Path,
    datasets: list[str] | None = None,
    *,
    lock_path: str | Path | None = None,
    access: list[str] | None = None,
    force: bool = False,
) -> CroissantReport:
    """Write `<id>.croissant.json` for each named record (every record when none is named) into `output`.

    Without `lock_path`, the lock at the registry root is read if there is one. Each file is written whole to a
    temporary file and renamed, so a failure leaves no half-written file; an existing file is replaced only with
    `force`, and every check happens before the first file is written.
    """
    not_loaded = unloaded_records(registry)
    unknown = [d for d in datasets or [] if d not in registry.datasets and d not in not_loaded]
    if unknown:
        close = closest(unknown[0], sorted(registry.datasets))
        raise CroissantProblem(f"no dataset {unknown[0]!r} in the "
                               f"registry{f'; did you mean {close!r}?' if close else ''}")
    asked = dict.fromkeys(datasets or sorted(registry.datasets))
    chosen = [registry.datasets[d] for d in asked if d in registry.datasets]
    not_written = {d: why for d, why in not_loaded.items() if not datasets or d in datasets}
    if access:
        chosen = [r for r in chosen if r.access.tier in access]
        not_written = {d: why + " (so its access tier is not known either)" for d, why in not_written.items()}
    if lock_path is None and registry.root is not None and (registry.root / LOCK_FILE).is_file():
        lock_path = registry.root / LOCK_FILE
    lock = read_lock(Path(lock_path)) if lock_path is not None else None
    out = Path(output)
    if out.exists() and not out.is_dir():
        raise CroissantProblem(f"{out} is not a folder", code="CLR983")
    targets = {r.id: out / f"{r.id}{SUFFIX}" for r in chosen}
    in_the_way = [str(p) for p in targets.values() if p.exists()]
    if in_the_way and not force:
        raise CroissantProblem(f"{in_the_way[0]} exists; pass --force to replace it", code="CLR983")
    made = []
    for record in chosen:
        try:
            made.append((record, *describe(record, lock)))
        except NotDescribable as err:
            not_written[record.id] = str(err)
    out.mkdir(parents=True, exist_ok=True)
    report = CroissantReport(output=str(out), lock=str(lock_path) if lock_path is not None else None,
                             not_written=dict(sorted(not_written.items())))
    for record, document, left_out, locked in made:
        atomic_write_text(targets[record.id], dumps(document))
        report.files.append(CroissantFile(record.id, targets[record.id].name, left_out, locked))
    return report


def unloaded_records(registry: Registry) -> dict[str, str]:
    """Record files that hold no loaded record (a YAML or schema error, an id defined twice), by file name, with the
    first error: an export names them rather than leave them out in silence. Records a `--release` view leaves
    out are not among them."""
    errors: dict[str, list[Any]] = {}
    for diagnostic in registry.diagnostics:
        if diagnostic.severity == "error":
            errors.setdefault(diagnostic.file, []).append(diagnostic)
    out: dict[str, str] = {}
    for sf in registry.files:
        if sf.kind != "dataset":
            continue
        model = sf.model
        loaded = isinstance(model, Dataset) and registry.datasets.get(model.id) is model
        if loaded or (isinstance(model, Dataset) and model.id in registry.later_datasets):
            continue
        found = errors.get(sf.rel, [])
        first = (f"{found[0].file}:{found[0].line}: {found[0].code} {found[0].message}" if found
                 else f"{sf.rel}: the file holds no record")
        more = f" (and {len(found) - 1} more error(s); `clinreg validate` lists them)" if len(found) > 1 else ""
        out[Path(sf.rel).stem] = f"the record did not load: {first}{more}"
    return out


def dumps(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def read_lock(path: Path) -> dict[str, Any]:
    """The lock's mappings (`dataset/mapping` -> entry) and skipped mappings, or a usage error naming the file."""
    from clinreg.instances.lock import lock_text  # bounded: a regular file of at most MAX_LOCK_BYTES

    try:
        data = json.loads(lock_text(path))
    except FileNotFoundError:
        raise CroissantProblem(f"no lock file at {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CroissantProblem(f"{path}: not a readable lock file ({' '.join(str(err).split())})") from None
    if not isinstance(data, dict) or not isinstance(data.get("mappings"), dict):
        raise CroissantProblem(f"{path}: not a clinreg lock file (no `mappings` object)")
    skipped = data.get("skipped")
    return {"mappings": data["mappings"], "skipped": skipped if isinstance(skipped, dict) else {}}


def describe(record: Dataset, lock: dict[str, Any] | None) -> tuple[dict[str, Any], list[str], list[str]]:
    """The Croissant document of one record, what it leaves out, and the mappings whose instances carry a sha256."""
    left_out: list[str] = []
    doc: dict[str, Any] = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": [CROISSANT_1_1, RAI_1_0],
        "name": record.name,
        "alternateName": record.id,
        "description": _text(record.description),
    }
    url, url_how = page_of(record)
    doc["url"] = url
    if url_how:
        doc["clinreg:urlNote"] = url_how
        left_out.append("url: the data have no public page (" + _source_words(record) + "); " + url_how)
    doc["license"] = licence_of(record, url)
    if record.licence.spdx in ("unknown", "other"):
        left_out.append(f"license: {record.licence.spdx}, so no SPDX licence is given"
                        + (f" ({_text(record.licence.note)})" if record.licence.note else "")
                        + f"; stated as the CreativeWork {doc['license']['name']!r}")
    creators, creator_how = creators_of(record)
    doc["creator"] = creators
    if creator_how:
        doc["clinreg:creatorNote"] = creator_how
    doc["citeAs"] = cite_as(record)
    _card_facts(record, doc, left_out)
    doc["sdVersion"] = record.version
    version = data_version(record)
    if version:
        doc["version"] = version
    else:
        left_out.append("version: the record gives no version number of the data itself (sdVersion is the clinreg "
                        "record's version); the source is read" + _pin_words(record))
    if _pinned(record):
        doc["isLiveDataset"] = False
    doc["keywords"] = sorted({task for m in record.mappings for task in m.tasks})
    _data_use(record, doc, left_out)
    _responsible_ai(record, doc, left_out)
    file_sets = _source_files(record, left_out)
    distribution = list(file_sets.values())
    locked = _instance_files(record, lock, distribution, left_out)
    if not distribution:
        distribution.append(_obtain_files(record))
    doc["distribution"] = distribution
    doc["recordSet"] = [_record_set(record, m, left_out) for m in record.mappings if m.id in file_sets]
    left_out.extend(NEVER_IN_RECORD)
    return doc, left_out, locked


def dataset_url(record: Dataset) -> str | None:
    """The page of the data as distributed: the hub or GitHub repository, the download URL or the PhysioNet page."""
    source = record.source
    if isinstance(source, HubSource):
        return f"https://huggingface.co/datasets/{source.repo}"
    if isinstance(source, GitHubSource):
        return f"https://github.com/{source.repo}"
    if isinstance(source, UrlSource):
        return source.url
    if isinstance(source, PhysioNetSource):
        return source.url
    return None


def citation_page(record: Dataset) -> str | None:
    """The page of the work the record cites: its DOI, else its arXiv abstract, else its URL."""
    c = record.citation
    if c.doi:
        return f"https://doi.org/{c.doi}"
    if c.arxiv:
        return f"https://arxiv.org/abs/{c.arxiv}"
    return c.url or None


def page_of(record: Dataset) -> tuple[str, str]:
    """Croissant's `url` (Required) and, when it is not the data's own page, how it was chosen."""
    url = dataset_url(record)
    if url:
        return url, ""
    cited = citation_page(record)
    if cited:
        return cited, "the data have no public page; this is the page of the work the record cites"
    query = re.sub(r"\s+", "+", re.sub(r"[^A-Za-z0-9 ]+", " ", _text(record.citation.text)).strip())
    return (f"https://scholar.google.com/scholar?q={query}",
            "the data have no public page and the citation no DOI, arXiv id or URL; this is a search for the citation")


def access_page(record: Dataset, url: str) -> str:
    """Where a user finds out how to get the data: the PhysioNet page, else the dataset's `url`."""
    source = record.source
    if isinstance(source, PhysioNetSource) and source.url:
        return source.url
    return url


def licence_of(record: Dataset, url: str) -> str | dict[str, Any]:
    """Croissant's `license` (Required): the SPDX page of a known licence; otherwise a CreativeWork that says what
    is known. Gated data name their agreement; an unknown licence is called unknown, with the page to ask."""
    licence = record.licence
    if licence.spdx not in ("unknown", "other"):
        return f"https://spdx.org/licenses/{licence.spdx}.html"
    note = _text(licence.note)
    page = access_page(record, url)
    if record.access.tier == "gated":
        name = re.split(r";|\. ", note, maxsplit=1)[0].rstrip(".") or "Data use agreement"
        where = ("url is the project's PhysioNet page, which gives its licence and agreement"
                 if isinstance(record.source, PhysioNetSource) and record.source.url
                 else "the record holds no page of the agreement itself; url is where to find out")
        return {"@type": "sc:CreativeWork", "name": name, "url": page,
                "description": f"The data use agreement under which the data are released ({note.rstrip('.')}); "
                               f"{where}."}
    name = "Unknown licence" if licence.spdx == "unknown" else "A licence that is not an SPDX licence"
    return {"@type": "sc:CreativeWork", "name": name, "url": page,
            "description": (f"{note} The page at url is where to find out." if note
                            else "The page at url is where to find out.")}


ORGANISATION_WORDS = {"ai", "inc", "inc.", "lab", "labs", "university", "institute", "foundation", "consortium",
                      "group", "organisation", "organization", "team"}


def creators_of(record: Dataset) -> tuple[list[dict[str, str]], str]:
    """Croissant's `creator` (Required), from the citation's author list (`Name, Name and Name (year)`), and a note
    where the list is abridged or was inferred. A citation that names no authors gives the publisher of the data:
    the owner of the hub or GitHub repository, PhysioNet, or the host of the download."""
    text = _text(record.citation.text)
    match = re.match(r"^(?P<authors>[^()]+?)\s*\((?P<year>\d{4})\)", text)
    if match:
        authors = match["authors"].strip().rstrip(",")
        abridged = bool(re.search(r"\bet al\.?$", authors))
        names = [n for n in re.split(r",\s*|\s+and\s+", re.sub(r",?\s*\bet al\.?$", "", authors)) if n.strip()]
        if len(names) == 1 and not abridged and _organisation(names[0], record):
            return [{"@type": "sc:Organization", "name": names[0]}], ""
        note = ("the citation names the first author(s) only (et al.); the full list is in the cited work"
                if abridged else "")
        return [{"@type": "sc:Person", "name": n.strip()} for n in names], note
    owner = _publisher(record)
    if owner is None:
        raise NotDescribable(f"{record.id}: creator, which Croissant requires, cannot be given: the citation names no "
                             "author and the source names no publisher")
    return ([{"@type": "sc:Organization", "name": owner[0]}],
            f"inferred: the citation names no author, so this is the publisher of the data ({owner[1]})")


def citation_year(record: Dataset) -> str | None:
    found = re.search(r"\((\d{4})\)", record.citation.text)
    return found.group(1) if found else None


def data_version(record: Dataset) -> str | None:
    """The version of the data where the record names one: a PhysioNet project's version in its URL."""
    source = record.source
    if isinstance(source, PhysioNetSource) and source.url:
        found = re.search(r"/(\d+\.\d+(?:\.\d+)?)/?$", source.url)
        return found.group(1) if found else None
    return None


def _pinned(record: Dataset) -> bool:
    """Whether the record reads a fixed copy of the data: a pinned hub revision or GitHub commit, or a versioned
    PhysioNet release."""
    source = record.source
    return bool(getattr(source, "revision", None) or getattr(source, "commit", None) or data_version(record))


def _organisation(name: str, record: Dataset) -> bool:
    maintainer = record.maintainer.value if _known(record.maintainer) else ""
    words = name.lower().split()
    return name == maintainer or "." in name or bool(words and words[-1] in ORGANISATION_WORDS)


def _publisher(record: Dataset) -> tuple[str, str] | None:
    source = record.source
    if isinstance(source, (HubSource, GitHubSource)) and "/" in source.repo:
        where = "hub" if isinstance(source, HubSource) else "GitHub"
        return source.repo.split("/")[0], f"the owner of the {where} repository {source.repo}"
    if isinstance(source, PhysioNetSource):
        return "PhysioNet", f"which distributes the project {source.project}"
    if isinstance(source, UrlSource):
        host = re.sub(r"^https?://", "", source.url).split("/")[0]
        return host, "the host the data are downloaded from"
    if _known(record.maintainer):
        return _text(record.maintainer.value), "the record's maintainer"
    return None


def _obtain_files(record: Dataset) -> dict[str, Any]:
    """For a record that names no files: a FileSet of its folder in a clinreg data folder, whose description says
    how to get the files. Croissant requires a distribution; no checksum or file name is made up."""
    folder = folder_name(record)
    how = _text(record.access.instructions) or "The record does not say how to obtain the files."
    return {
        "@type": "cr:FileSet",
        "@id": f"files/{record.id}",
        "name": f"files/{record.id}",
        "description": (f"The record names no files it reads, so this is whatever the data's holders supply, placed "
                        f"in the subfolder {folder}/ of a clinreg data folder (--data-dir). How to obtain them "
                        f"({record.access.tier} access): {how}"),
        "encodingFormat": "application/octet-stream",
        "includes": f"{folder}/**",
    }


def cite_as(record: Dataset) -> str:
    c = record.citation
    parts = [_text(c.text)]
    if c.doi:
        parts.append(f"https://doi.org/{c.doi}")
    if c.arxiv:
        parts.append(f"https://arxiv.org/abs/{c.arxiv}")
    if c.url:
        parts.append(c.url)
    return " ".join(parts)


def _card_facts(record: Dataset, doc: dict[str, Any], left_out: list[str]) -> None:
    released = record.first_released
    if _known(released):
        doc["datePublished"] = released.value
    else:
        year = citation_year(record)
        why = _unknown(released, "the record has no first_released")
        if year is None:
            raise NotDescribable(f"{record.id}: datePublished, which Croissant requires, cannot be given: the first "
                                 f"release is {why} and the citation names no year")
        doc["datePublished"] = year
        doc["clinreg:datePublishedNote"] = (f"the year of the record's citation: its first release is {why}")
        left_out.append(f"datePublished: the first release is {why}; the citation's year {year} is given instead")
    languages = record.languages
    if _known(languages):
        doc["inLanguage"] = list(languages.value)
    else:
        left_out.append("inLanguage: " + _unknown(languages, "the record has no languages"))
    if _known(record.maintainer):
        doc["maintainer"] = {"name": _text(record.maintainer.value)}  # a phrase: not typed as person or organisation
    else:
        left_out.append("maintainer: " + _unknown(record.maintainer, "the record has no maintainer"))


def _data_use(record: Dataset, doc: dict[str, Any], left_out: list[str]) -> None:
    """Access and data-use terms: the tier's DUO terms under `usageInfo`, the instructions as `conditionsOfAccess`."""
    tier = record.access.tier
    doc["clinreg:accessTier"] = tier
    doc["clinreg:accessPage"] = access_page(record, doc["url"])
    if record.access.instructions:
        doc["conditionsOfAccess"] = _text(record.access.instructions)
        doc["clinreg:accessInstructions"] = _text(record.access.instructions)
    terms = DUO_TERMS[tier]
    if tier == "public" and record.licence.spdx in ("unknown", "other"):
        terms = []
        left_out.append("usageInfo: public data whose licence is " + record.licence.spdx
                        + ", so no DUO term is asserted (the tier alone does not say the use is unrestricted)")
    if terms:
        doc["usageInfo"] = [
            {"@type": "sc:DefinedTerm", "name": name, "termCode": code, "url": DUO_BASE + code,
             "inDefinedTermSet": DUO_BASE + "duo.owl",
             "description": f"clinreg's reading of its access tier `{tier}` (docs/croissant.md)"}
            for code, name in terms
        ]
    if tier == "public" and terms:
        left_out.append("usageInfo: the licence's own conditions (attribution, share-alike) are given by license, "
                        "not as DUO terms")
    elif tier != "public":
        left_out.append("usageInfo: only DUO modifiers read from the access tier; the data use permission and the "
                        "terms of the source's own agreement (purpose, disease, time or publication limits) are not "
                        "in the record")


def _responsible_ai(record: Dataset, doc: dict[str, Any], left_out: list[str]) -> None:
    uses = []
    if record.measures:
        uses.append("Measures: " + _text(record.measures))
    if record.use_when:
        uses.append("Use when: " + _text(record.use_when))
    if record.not_for:
        uses.append("Not for: " + _text(record.not_for))
    if uses:
        doc["rai:dataUseCases"] = uses
    else:
        left_out.append("rai:dataUseCases: the record has no measures, use_when or not_for")
    limitations = [_text(n) for n in record.notes]
    limitations += [f"{m.id}: {_text(m.note)}" for m in record.mappings if m.note]
    if limitations:
        doc["rai:dataLimitations"] = limitations
    else:
        left_out.append("rai:dataLimitations: the record has no notes")


def _source_files(record: Dataset, left_out: list[str]) -> dict[str, dict[str, Any]]:
    """Per mapping, one FileSet: the files its splits are read from (and the tables joined into them) as they are
    distributed, at their paths in a clinreg data folder (`--data-dir`), without a checksum, since the lock knows
    none per file."""
    source = record.source
    folder = folder_name(record)
    described = _source_words(record) + _pin_words(record)
    read = getattr(source, "read", None)
    out: dict[str, dict[str, Any]] = {}
    for mapping in record.mappings:
        specs = ([read.splits[s] for s in mapping.splits
                  if s in read.splits] + list(read.tables.values())) if read else []
        names: list[str] = []
        formats: list[str] = []
        for spec in specs:
            patterns = [spec.archive] if spec.archive else file_patterns(spec.files)
            names += [n for n in patterns if n not in names]
            fmt = "zip" if spec.archive else spec.format or _format_of(patterns)
            if fmt not in formats:
                formats.append(fmt)
        if read is None:
            names = list(getattr(source, "paths", None) or getattr(source, "files", None) or [])
            formats = [_format_of(names)]
        if not names:
            note = getattr(source, "read_note", None)
            left_out.append(f"distribution and recordSet of {mapping.id}: the record names no files it reads"
                            + (f" ({_text(note)})" if note else ""))
            continue
        out[mapping.id] = {
            "@type": "cr:FileSet",
            "@id": f"files/{mapping.id}",
            "name": f"files/{mapping.id}",
            "description": (f"The files {mapping.id} is read from (splits {', '.join(mapping.splits)}), as "
                            "distributed: "
                            f"{described}. Paths are relative to a clinreg data folder (--data-dir), in its "
                            f"subfolder {folder}/."),
            "encodingFormat": [MEDIA_TYPES.get(f or "", "application/zip" if f == "zip" else "application/octet-stream")
                               for f in formats],
            "includes": [f"{folder}/{_glob(n)}" for n in names],
        }
    if out:
        left_out.append("sha256 of the source files: clinreg's lock holds one hash of the whole mirror folder, not "
                        "one per file, so the source files are FileSets, which carry no checksum")
    return out


def made_columns(record: Dataset, mapping: Any) -> dict[str, str]:
    """Columns of the row that no file holds as a column: made by a read step or a file name part, or read by a
    reader (xlsx, docx, xml, text, line-aligned) whose columns Croissant's extract cannot name. Column -> how."""
    read = getattr(record.source, "read", None)
    made: dict[str, str] = {}
    if read is None:
        return made
    for split in mapping.splits:
        spec = read.splits.get(split)
        if spec is None:
            continue
        for pattern in file_patterns(spec.files):
            for name in re.findall(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", pattern):
                made.setdefault(name, "a part of the file name")
        fmt = spec.format or _format_of(file_patterns(spec.files))
        if fmt not in TABULAR:
            made.setdefault("*", f"read by clinreg's {fmt or 'mixed-format'} reader")
        elif fmt == "json" and spec.records:
            made.setdefault("*", f"a field of the records at `{spec.records}` inside each JSON document")
        for step in spec.steps:
            if step.pick:
                made.setdefault(step.pick.column, f"picked from the list {step.pick.list}")
            elif step.join_list:
                made.setdefault(step.join_list.column, f"joined from the list {step.join_list.list}")
            elif step.render:
                made.setdefault(step.render.column, "rendered from a template over the row")
            elif step.extract:
                for pattern in step.extract.patterns:
                    for name in re.compile(pattern).groupindex:
                        made.setdefault(name, f"extracted from {step.extract.column} by a pattern")
            elif step.join:
                how = f"brought in by joining the table {step.join.table}"
                for column in step.join.columns or ["*"]:
                    made.setdefault(column, how)
            elif step.adapter:
                made.setdefault("*", f"made by the adapter {step.adapter.name}")
    return made


TABULAR = {"csv", "tsv", "json", "jsonl", "parquet", "feather", "arrow"}


def _instance_files(record: Dataset, lock: dict[str, Any] | None, distribution: list[dict[str, Any]],
                    left_out: list[str]) -> list[str]:
    """A FileObject per mapping whose canonical instances the lock fingerprints for this version of the record."""
    locked: list[str] = []
    for mapping in record.mappings:
        key = f"{record.id}/{mapping.id}"
        entry = (lock or {}).get("mappings", {}).get(key)
        sha = entry.get("instances_sha256") if isinstance(entry, dict) else None
        if lock is None:
            why = "no lock file was read"
        elif not isinstance(entry, dict):
            reason = lock["skipped"].get(key)
            why = "the lock has no entry" + (f" (skipped: {_text(str(reason))})" if reason else "")
        elif entry.get("record_version") != record.version:
            why = f"the lock's entry is for record version {entry.get('record_version')}, not {record.version}"
        elif not (isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha)):
            why = "the lock's entry holds no sha256"
        else:
            why = ""
        if why:
            left_out.append(f"instances of {mapping.id}: {why}, so no checksum is known and the file is not listed")
            continue
        distribution.append({
            "@type": "cr:FileObject",
            "@id": f"instances/{mapping.id}",
            "name": f"{mapping.id}.jsonl",
            "description": (f"The canonical instances of {mapping.id} (splits {', '.join(mapping.splits)}), as "
                            f"`clinreg build {record.id} --mapping {mapping.id}` writes them and as "
                            f"`clinreg export` places them; {entry.get('instances')} instance(s). The sha256 is the "
                            "lock's: each instance's provenance names the clinreg version and registry release, so a "
                            "build by another version differs"
                            + (" (built with --on-bad-label skip)." if entry.get("on_bad_label") == "skip" else ".")),
            "contentUrl": f"data/{record.id}/{mapping.id}.jsonl",
            "encodingFormat": "application/jsonlines",
            "sha256": sha,
        })
        locked.append(mapping.id)
    return locked


def _record_set(record: Dataset, mapping: Any, left_out: list[str]) -> dict[str, Any]:
    """The benchmark's row as the template and the label scheme read it: one field per column, the gold labelled,
    each extracted by its column name from the mapping's FileSet."""
    fields: list[dict[str, Any]] = []
    seen: dict[str, str] = {}
    made = made_columns(record, mapping)
    not_in_files: list[str] = []
    for column, role in mapping_columns(record, mapping):
        if column in seen:
            continue
        ident = _field_id(mapping.id, column, set(seen.values()))
        seen[column] = ident
        how = made.get(column) or made.get("*")
        if how is None and "." in column:
            how = "a dotted name, which clinreg reads as a path into a nested column"
        words = ROLE_WORDS[role] + (f" Not a column of the files: {how}." if how else "")
        if how:
            not_in_files.append(f"{column} ({how})")
        fields.append({
            "@type": "cr:Field",
            "@id": ident,
            "name": column,
            "description": words,
            "dataType": ["sc:Text", "cr:Label"] if role == "gold" else "sc:Text",
            "source": {"fileSet": {"@id": f"files/{mapping.id}"}, "extract": {"column": column}},
        })
    if not_in_files:
        left_out.append(f"extraction in {mapping.id}: these fields are columns of the row clinreg builds, not of "
                        f"the files, so their extract names no file column: {'; '.join(not_in_files)}")
    splits = ", ".join(mapping.splits)
    return {
        "@type": "cr:RecordSet",
        "@id": mapping.id,
        "name": mapping.id,
        "description": (f"The benchmark {mapping.id}, built from split(s) {splits}: the columns of the row that its "
                        f"input template, options and label scheme ({mapping.label.encoding}) read. Tasks: "
                        f"{', '.join(mapping.tasks)}. Main metric: {mapping.metric.name}."),
        "field": fields,
    }


ROLE_WORDS = {
    "input": "Read by the input template.",
    "choices": "Holds the answer options.",
    "gold": "The gold answer, as the label scheme reads it.",
    "read": "Read by the benchmark (fields_read).",
}


def mapping_columns(record: Dataset, mapping: Any) -> list[tuple[str, str]]:
    """(column, role) in order: the template's columns, the option columns, the gold columns, then `fields_read`."""
    renamed: dict[str, list[str]] = {}
    for variant in mapping.variants:
        for name, column in variant.columns.items():
            renamed.setdefault(name, []).append(column)

    def real(name: str) -> list[str]:
        return renamed.get(name, [name])

    out: list[tuple[str, str]] = []
    try:
        template = InputTemplate(mapping.input_template, f"{record.id}/{mapping.id}")
        names = sorted((template.variables | template.row_keys) - {ROW_VARIABLE, "variant"})
    except RecordProblem:
        names = []
    out += [(c, "input") for n in names for c in real(n)]
    choices = mapping.choices
    if choices is not None:
        for column in (choices.columns or []) + [c for c in (choices.struct, choices.items) if c]:
            out += [(c, "choices") for c in real(column)]
    label = mapping.label
    for column in (getattr(label, "column", None), getattr(label, "lower_column", None),
                   getattr(label, "upper_column", None)):
        if column:
            out += [(c, "gold") for c in real(column)]
    out += [(c, "read") for c in mapping.fields_read]
    return out


def _field_id(mapping_id: str, column: str, taken: set[str]) -> str:
    base = f"{mapping_id}/{re.sub(r'[^A-Za-z0-9_.-]+', '_', column).strip('_') or 'column'}"
    ident, n = base, 2
    while ident in taken:
        ident, n = f"{base}_{n}", n + 1
    return ident


def _format_of(names: list[str]) -> str | None:
    formats = {infer_format(n) for n in names}
    return formats.pop() if len(formats) == 1 else None


def _glob(pattern: str) -> str:
    """A read pattern as a glob: each `{name}` part matches what `*` matches."""
    return re.sub(r"\{[A-Za-z_][A-Za-z0-9_]*\}", "*", pattern)


def _source_words(record: Dataset) -> str:
    source = record.source
    if isinstance(source, HubSource):
        return f"the Hugging Face hub dataset {source.repo}" + (f", config {source.config}" if source.config else "")
    if isinstance(source, GitHubSource):
        return f"the GitHub repository {source.repo}"
    if isinstance(source, UrlSource):
        return f"a download from {source.url}"
    if isinstance(source, PhysioNetSource):
        return f"the PhysioNet project {source.project}" + (f", {source.url}" if source.url else "")
    assert isinstance(source, LocalSource)
    return "files held locally: " + _text(source.description).rstrip(".")


def _pin_words(record: Dataset) -> str:
    source = record.source
    pin = getattr(source, "revision", None) or getattr(source, "commit", None)
    if pin:
        return f" at revision {pin}"
    if isinstance(source, (HubSource, GitHubSource)):
        return ", not pinned to a revision" + (f" ({_text(source.revision_note)})" if source.revision_note else "")
    return ""


def _known(fact: Any) -> bool:
    return fact is not None and fact.value != fact._unknown_word


def _unknown(fact: Any, missing: str) -> str:
    if fact is None:
        return missing
    return "unknown" + (f" ({_text(fact.reason)})" if getattr(fact, "reason", None) else "")


def _text(text: str | None) -> str:
    return " ".join((text or "").split())
