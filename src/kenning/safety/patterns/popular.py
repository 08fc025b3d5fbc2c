"""Popular package and organisation names, and the look-alikes typosquatters register.

A typosquat is a name one slip away from a name people install every day: two letters swapped
(``reqeusts``, ``lodahs``, ``axois``), one letter added or dropped (``colorsama``, ``urlib3``,
``expresss``), a digit for a letter (``go1ang``, ``crypt0``, ``pre-c0mmit``), or the real name
with a reassuring suffix (``jsonwebtoken-secure``). :func:`lookalike_of` finds such a name among
the package names of a text. The lists hold the most installed names of PyPI, npm, RubyGems,
crates.io and Go, the GitHub organisations their code comes from, and names that are one slip
from a popular one but real and common themselves (``preact``, ``scapy``, ``request``, the
Node.js modules ``https`` and ``crypto``): those pass. Short names (under five letters) are
left alone: too many words and tools are one letter from ``vite`` or ``jest``.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from kenning.safety import compiled

# The most installed names, by registry (lower case, "_" read as "-").
_PYPI: Final = """requests urllib3 numpy pandas scipy matplotlib django flask fastapi pydantic
sqlalchemy boto3 botocore pyyaml colorama python-dateutil setuptools wheel certifi idna
charset-normalizer cryptography pyjwt python-jwt jinja2 markupsafe click attrs pytest pytest-cov
coverage black isort flake8 pylint poetry virtualenv pillow beautifulsoup4 selenium scrapy
celery redis psycopg2 psycopg2-binary pymongo httpx aiohttp uvicorn gunicorn werkzeug tornado
twisted paramiko fabric ansible docker kubernetes openai anthropic langchain transformers
tensorflow torch torchvision keras scikit-learn xgboost lightgbm opencv-python nltk spacy tqdm
typer loguru structlog tzdata arrow pendulum simplejson orjson msgpack protobuf grpcio
google-cloud-storage azure-storage-blob pyopenssl pycryptodome bcrypt passlib python-dotenv
tomli pyparsing packaging jsonschema marshmallow alembic networkx sympy seaborn plotly
streamlit gradio pyarrow polars numba cython pybind11 pexpect psutil watchdog sentry-sdk stripe
twilio slack-sdk tweepy pygments docutils sphinx mkdocs mkdocs-material faker hypothesis
freezegun responses requests-mock requests-oauthlib oauthlib gitpython pygithub openpyxl
xlsxwriter reportlab pypdf tabulate termcolor prompt-toolkit ipython jupyter notebook
jupyterlab pytest-mock pytest-asyncio pytest-xdist aiofiles websockets websocket-client pyzmq
greenlet gevent eventlet kombu s3transfer awscli pycparser cffi setuptools-scm twine hatchling
pipenv pip-tools colorlog python-multipart email-validator dnspython shapely"""
_NPM: Final = """lodash lodash-es underscore axios request node-fetch superagent express fastify
react react-dom preact angular svelte gatsby webpack rollup parcel esbuild babel-core typescript
ts-node eslint prettier mocha sinon jasmine cypress playwright puppeteer jquery moment dayjs
date-fns luxon chalk commander yargs inquirer nodemon concurrently rimraf mkdirp minimatch
semver nanoid classnames prop-types redux react-redux zustand socket.io mongoose sequelize
typeorm prisma mysql2 ioredis bcryptjs jsonwebtoken passport helmet body-parser cookie-parser
multer morgan winston bluebird core-js regenerator-runtime graphql apollo-server
styled-components tailwindcss postcss autoprefixer bootstrap three chart.js highlight.js
marked markdown-it handlebars cheerio jsdom xml2js js-yaml minimist colors event-stream
ua-parser-js node-ipc electron electron-builder lerna husky lint-staged commitlint vitest
formik react-hook-form react-router react-router-dom next-auth firebase aws-sdk nodemailer
http-server browserify openapi-generator"""
_OTHER: Final = """rails devise sidekiq nokogiri rspec rubocop bundler serde tokio clap reqwest
anyhow thiserror cobra viper logrus testify gorm"""
# Organisations and module hosts code is fetched from.
_ORGS: Final = """golang google microsoft facebook hashicorp kubernetes actions github
pre-commit pre-commit-hooks nodejs python pypa pallets tiangolo vercel vuejs sveltejs pytorch
huggingface anthropics openai spf13 sirupsen gin-gonic gorilla labstack stretchr uber-go
protocolbuffers golang-jwt golangci terraform-aws-modules prometheus grafana elastic mozilla
apache rust-lang tokio-rs serde-rs crypto tools commit"""
# Real names one slip from a popular one, and words that look like package names.
_KNOWN: Final = """request requests preact scapy scipy https http crypto stream events buffer
assert process domain boto boto3 pytest pytests touch torch docker dockers python python3
pythons reach react reacts panda pandas express expressjs types typing mock mocks moto
django-filter django-filters flask-login flask-cors colors color click clicks redis rediss
attr attrs rich typer tools tool commits commit cryptography graphql graphene mysql mysql2
pymysql postgres postgresql sqlite sqlite3 sequelize numpy numba jinja jinja2 crypt crypto3
mongo mongodb mongoose marked markdown github gitlab golang golang-jwt"""


def _names(block: str) -> frozenset[str]:
    return frozenset(block.split())


POPULAR: Final = _names(_PYPI) | _names(_NPM) | _names(_OTHER) | _names(_ORGS)
_KNOWN_NAMES: Final = POPULAR | _names(_KNOWN)
_BY_LENGTH: Final[dict[int, tuple[str, ...]]] = {
    n: tuple(sorted(p for p in POPULAR if len(p) == n)) for n in {len(p) for p in POPULAR}
}
_SUFFIXES: Final = frozenset(
    "secure safe patched fixed fix official verified maintained hardened".split()
)
_LEET: Final = str.maketrans("0134579@$", "oleastgas")
_LEET_I: Final = str.maketrans("0134579@$", "oieastgas")


def _one_slip(name: str, popular: str) -> bool:
    """True if ``name`` is ``popular`` with two neighbours swapped (five letters or more), or
    one letter added, dropped or changed (six letters or more; seven for a change)."""
    n, p = len(name), len(popular)
    if n == p:
        diff = [i for i in range(n) if name[i] != popular[i]]
        if len(diff) == 2 and diff[1] == diff[0] + 1 and p >= 5:
            i, j = diff
            return name[i] == popular[j] and name[j] == popular[i]
        return len(diff) == 1 and p >= 7
    if abs(n - p) != 1 or p < 6:
        return False
    longer, shorter = (name, popular) if n > p else (popular, name)
    i = 0  # the first difference; the rest must match once the extra letter is skipped
    while i < len(shorter) and longer[i] == shorter[i]:
        i += 1
    return longer[i + 1 :] == shorter[i:]


@functools.lru_cache(maxsize=4096)
def _squat_of(name: str) -> str | None:
    """The popular name ``name`` imitates, or None."""
    if name in _KNOWN_NAMES or len(name) < 5:
        return None
    if any(c.isdigit() for c in name):
        for unfold in (name.translate(_LEET), name.translate(_LEET_I)):
            if unfold != name and unfold in POPULAR:
                return unfold
    head, _, tail = name.rpartition("-")
    if head in POPULAR and tail in _SUFFIXES:
        return head
    for n in (len(name) - 1, len(name), len(name) + 1):
        for popular in _BY_LENGTH.get(n, ()):
            if _one_slip(name, popular):
                return popular
    return None


_TOKEN: Final = compiled.regex(r"[A-Za-z0-9][\w.-]*")
_VERSION: Final = compiled.regex(r"(?:@|==|>=|<=|~=|!=)\S*$|\.git$")


def lookalike_of(text: str, *, parts: bool = True) -> tuple[str, str] | None:
    """The first package or organisation name in ``text`` that imitates a popular one, as
    (name, the popular name), or None; with ``parts`` also a hyphenated name's parts
    ("jsonwebtoken-secure")."""
    for raw in re.findall(r"[@\w./-]+", text):
        path = _VERSION.sub("", raw.lower().replace("_", "-"))
        pieces = [p for p in path.split("/") if p]
        for piece in pieces:
            words = piece.split("-") if parts and "-" in piece else []
            for name in [piece, *words]:  # the whole name first, then its parts
                if not _TOKEN.fullmatch(name):
                    continue
                popular = _squat_of(name)
                if popular is not None:
                    return name, popular
    return None
