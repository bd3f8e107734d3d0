"""As-distributed fixture for `healthqa_br` (hub dataset Larxel/healthqa-br, default config, split train).

SHAPE: medhelm 0.8.0's scenario (helm/benchmark/scenarios/healthqa_br_scenario.py) loads the repository's default
config and reads its `train` split, which it builds as HELM's test split. It reads two fields: `question` (the stem,
then the options, each on a line of its own written `'A': 'text'`, the first of them preceded by a newline) and
`answer` (the gold letter, which it strips and upper-cases). It splits the text at the first newline followed by
`'<capital letter>': '`, reads every `'X': 'text'` pair after that point (a text ends at its first single quote),
keeps the stem stripped as the input and the option texts in order as references, and skips a question whose
gold letter is not among the parsed keys. The file name (healthqa-br.parquet, at the repository root) and the
other columns (id, group, source, year) come from third-party scripts, not from the repository's listing: they
are unverified, and their types are guesses (only question and answer matter to HELM). Rows are written by hand
in Portuguese, none copied from the real file; one has four options, one a lower-case gold letter with spaces,
one a gold letter with no such option and one options HELM cannot parse (both skipped by HELM).
"""
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq

FILLED_IN = True


def _question(stem: str, options: list[str]) -> str:
    return stem + "\n" + "\n".join(f"'{k}': '{v}'" for k, v in zip("ABCDE", options))


ROWS = [
    # (stem, options, answer as stored, kept by HELM)
    ("Mulher de 34 anos, gestante de 30 semanas, chega à Unidade Básica com pressão arterial de 160 x 110 mmHg "
     "e cefaleia. A conduta mais adequada é",
     ["orientar repouso e retorno em uma semana.", "solicitar ultrassonografia obstétrica ambulatorial.",
      "encaminhar imediatamente à maternidade de referência.", "prescrever diurético e reavaliar em 48 horas.",
      "iniciar atenolol e manter o pré-natal habitual."], "C", True),
    ("Na Estratégia Saúde da Família, a visita domiciliar do agente comunitário de saúde tem como objetivo principal",
     ["realizar procedimentos de enfermagem.", "acompanhar as famílias do território adscrito.",
      "prescrever medicamentos de uso contínuo.", "substituir a consulta médica."], " b ", True),
    ("Criança de 2 anos com febre há três dias e exantema após a queda da febre. O diagnóstico mais provável é",
     ["sarampo.", "rubéola.", "exantema súbito.", "escarlatina."], "E", False),
    ("Sobre a política de saúde bucal no SUS, assinale a alternativa correta. (alternativas em formato não "
     "reconhecido) A) atende apenas crianças B) inclui próteses", [], "B", False),
    ("Paciente em uso de varfarina inicia tratamento com um antibiótico e apresenta RNI de 6,5 sem sangramento. "
     "A conduta é",
     ["manter a dose e repetir o RNI em um mês.", "suspender doses e considerar vitamina K oral.",
      "transfundir plasma fresco imediatamente.", "dobrar a dose da varfarina.", "trocar por ácido acetilsalicílico."],
     "B", True),
]


def write(folder: pathlib.Path) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    texts = [_question(stem, options) if options else stem for stem, options, _, _ in ROWS]
    table = pa.table({
        "id": pa.array([f"q{i:04d}" for i in range(len(ROWS))], pa.string()),
        "question": pa.array(texts, pa.string()),
        "answer": pa.array([answer for _, _, answer, _ in ROWS], pa.string()),
        "group": pa.array(["Medicina", "Enfermagem", "Medicina", "Odontologia", "Farmácia"], pa.string()),
        "source": pa.array(["Revalida", "ENARE", "Revalida", "ENARE", "ENARE"], pa.string()),
        "year": pa.array([2020, 2021, 2022, 2021, 2023], pa.int64()),
    })
    pq.write_table(table, folder / "healthqa-br.parquet")
    kept = [(stem, options, answer) for stem, options, answer, keep in ROWS if keep]
    expected = [{"gold": answer.strip().upper(), "input_must_contain": [stem],
                 "input_must_not_contain": [f"'{k}': '" for k in "ABCDE"]} for stem, options, answer in kept]
    return {"splits": {"test": expected}, "dropped": {"test": len(ROWS) - len(kept)}}
