"""Where secret values live besides the project's secret files: the user's
well-known credential files in their home, the project's git history, the
credentials written into git's remote URLs, and the environment Luxe was
started with (the values it holds, and the credentials files it names).

`home_secret_files` only lists and stats. `git_history_secrets` runs git
once (bounded in time and output) and parses what it prints; the caller
(`SecretFiles`) decides when to run it again (when HEAD's reflog, the
index or the config changed). `git_url_credentials` reads git's config
files (a clone made with `https://TOKEN@github.com/…` keeps the token in
.git/config, and `git remote -v` prints it).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Mapping

from luxe.git_quoting import unquote_path
from luxe.policy.secret_values import (
    MIN_SECRET_LENGTH,
    is_token,
    secret_values_from_file,
    secret_values_from_other,
)
from luxe.regular_file import read_regular

# Credential files of well-known tools, relative to the home directory.
HOME_SECRET_FILES = (
    ".aws/credentials",
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".config/gh/hosts.yml",
    ".docker/config.json",
    ".kube/config",
    ".config/gcloud/application_default_credentials.json",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".m2/settings-security.xml",
    ".m2/settings.xml",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".azure/msal_token_cache.json",
    ".azure/accessTokens.json",
    ".azure/service_principal_entries.json",
    ".config/gcloud/credentials.db",
    ".config/gcloud/access_tokens.db",
    ".gradle/gradle.properties",
    ".config/rclone/rclone.conf",
    ".s3cfg",
    ".boto",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".fly/config.yml",
    ".config/doctl/config.yaml",
    ".nuget/NuGet/NuGet.Config",
    ".config/hub",
    ".databrickscfg",
    ".cache/huggingface/token",
    ".huggingface/token",
    ".claude/.credentials.json",
    ".codex/auth.json",
)
# Where the environment moves a tool's credentials out of the home: a
# directory variable and the files in it (a variable naming the file itself
# is environment_credential_files').
RELOCATED_IN_DIRECTORY = (
    ("XDG_CONFIG_HOME", ("gh/hosts.yml", "git/credentials",
                         "gcloud/application_default_credentials.json")),
    ("GH_CONFIG_DIR", ("hosts.yml",)),
    ("DOCKER_CONFIG", ("config.json",)),
    ("CARGO_HOME", ("credentials", "credentials.toml")),
    ("CLOUDSDK_CONFIG", ("application_default_credentials.json",)),
)
MAX_RELOCATED = 64

# In ~/.ssh every file is a private key except these.
SSH_PUBLIC_FILES = frozenset({"known_hosts", "known_hosts.old", "config", "authorized_keys", "environment"})

MAX_FOLDER_FILES = 64
# Folders of the home whose every file is a secret (but these public ones).
HOME_SECRET_FOLDERS: tuple[tuple[str, Callable[[str], bool]], ...] = (
    (".ssh", lambda name: name.endswith(".pub") or name in SSH_PUBLIC_FILES),
    (".gnupg/private-keys-v1.d", lambda name: False),
)


def home_secret_files(home: str) -> list[str]:
    """The user's well-known secret files that exist (regular files, symlinks
    followed: a link into a password store is still the secret)."""
    found = [p for rel in HOME_SECRET_FILES if os.path.isfile(p := os.path.join(home, rel))]
    for folder, public in HOME_SECRET_FOLDERS:
        where = os.path.join(home, folder)
        try:
            names = sorted(os.listdir(where))[:MAX_FOLDER_FILES]
        except OSError:
            names = []
        found += [p for name in names
                  if not public(name) and os.path.isfile(p := os.path.join(where, name))]
    return found


def relocated_secret_files(env: Mapping[str, str], cwd: str) -> list[str]:
    """The user's credential files where `env` moved them (gh's hosts.yml
    under $GH_CONFIG_DIR, a service account at
    $GOOGLE_APPLICATION_CREDENTIALS, each file of $KUBECONFIG...), whether
    or not they exist yet (the caller stats them). A relative path is where
    a tool started beside Luxe finds it: under `cwd`, the directory Luxe
    started in (`KUBECONFIG=kube/config` in an infrastructure checkout)."""
    paths = [
        os.path.join(cwd, env[var], name)
        for var, names in RELOCATED_IN_DIRECTORY
        if env.get(var)
        for name in names
    ]
    paths += environment_credential_files(env, cwd)
    return [os.path.normpath(p) for p in dict.fromkeys(paths)][:MAX_RELOCATED]


# -- git history ---------------------------------------------------------------

# Pathspecs of every secret file name (see secret_names.is_secret_path).
SECRET_PATHSPECS = (
    ":(glob,icase)**/.env",
    ":(glob,icase)**/.envrc",
    ":(glob,icase)**/.env.*",
    ":(glob,icase)**/*.pem",
    ":(glob,icase)**/*.key",
    ":(glob,icase)**/*.p12",
    ":(glob,icase)**/*.pfx",
    ":(glob,icase)**/id_rsa",
    ":(glob,icase)**/id_dsa",
    ":(glob,icase)**/id_ecdsa",
    ":(glob,icase)**/id_ed25519",
    ":(glob,icase)**/id_*_sk",
    ":(glob,icase)**/.ssh/id_*",
    ":(glob,icase)**/identity",
    ":(glob,icase)**/.netrc",
    ":(glob,icase)**/_netrc",
    ":(glob,icase)**/.pgpass",
    ":(glob,icase)**/.git-credentials",
    ":(glob,icase)**/.npmrc",
    ":(glob,icase)**/.pypirc",
    ":(glob,icase)**/credentials.json",
    ":(glob,icase)**/credentials",
)
GIT_TIMEOUT_S = 10.0
# How often a git that says nothing is checked for the session's close.
STOP_POLL_S = 0.05
MAX_HISTORY_BYTES = 8 << 20


def history_signature(root: str) -> tuple[int, ...]:
    """Changes whenever a commit, checkout, reset, stash or `git add` may
    have changed what git can show: HEAD's reflog, the refs and the index."""
    out: list[int] = []
    for rel in ("HEAD", "logs/HEAD", "packed-refs", "index", "refs/stash", "config"):
        try:
            st = os.stat(os.path.join(root, ".git", rel))
            out += [st.st_mtime_ns, st.st_size, st.st_ino]
        except OSError:
            out += [0, 0, 0]
    return tuple(out)


def _git(root: str, *args: str, stop: threading.Event | None = None) -> str:
    """git's output, at most MAX_HISTORY_BYTES of it, read as it comes: a
    history can hold a file of gigabytes in a pack of a few (a repeated
    line compresses to nothing), and `git log -p` would print all of it.
    Ends git, and answers "", as soon as `stop` is set (the session is
    closing: a git that hangs held close and signals for its deadline)."""
    import selectors  # in the warm-up's worker thread, not before the first frame
    import subprocess
    import time

    from luxe import children

    try:
        proc = children.popen(
            # A file over the cap counts as binary: git never inflates it.
            ["git", "-c", f"core.bigFileThreshold={MAX_HISTORY_BYTES}", "-C", root, "--no-pager",
             *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"},
        )
    except OSError:
        return ""
    assert proc.stdout is not None
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + GIT_TIMEOUT_S
    try:
        with proc, selectors.DefaultSelector() as ready:  # the `with` reaps it
            ready.register(proc.stdout, selectors.EVENT_READ)
            while size <= MAX_HISTORY_BYTES and (left := deadline - time.monotonic()) > 0:
                if stop is not None and stop.is_set():
                    proc.kill()
                    return ""
                if not ready.select(min(left, STOP_POLL_S)):
                    continue
                chunk = os.read(proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            else:
                proc.kill()  # past the cap (or the time): no more is read
    finally:
        children.forget(proc.pid)
    return b"".join(chunks)[:MAX_HISTORY_BYTES].decode("utf-8", "replace")


def git_history_secrets(
    root: str, is_secret: Callable[[str], bool], stop: threading.Event | None = None
) -> list[tuple[str, str]]:
    """Values that git can show for secret files: every line any commit
    added or removed in one (`git log -p` after `git rm .env`, `git diff`
    after rotating a key) and what the index holds. Empty outside git.
    Once `stop` is set no git runs and a running one is ended."""
    if not os.path.exists(os.path.join(root, ".git")):
        return []
    values: list[tuple[str, str]] = []
    log = _git(
        root, "log", "--all", "-p", "--no-color", "--no-ext-diff", "--no-textconv",
        "--src-prefix=a/", "--dst-prefix=b/",  # whatever the person's diff.noprefix says
        "--format=", "--", *SECRET_PATHSPECS, stop=stop,
    )
    path, lines, in_header = "", list[str](), False
    for line in log.splitlines():
        if line.startswith("diff --git "):
            if path and is_secret(path):
                values += secret_values_from_file(path, "\n".join(lines))
            path, lines, in_header = "", [], True
        elif in_header and line.startswith(("--- a/", "+++ b/", '--- "a/', '+++ "b/')):
            # git quotes a name with a tab, a quote or a byte outside ASCII
            # ("b/d\303\251/.env"): the name is read from here, unquoted,
            # never cut out of the "diff --git" line.
            path = unquote_path(line[4:])[2:]
        elif line.startswith("@@"):
            in_header = False
        elif not in_header and line.startswith(("+", "-")):
            lines.append(line[1:])
    if path and is_secret(path):
        values += secret_values_from_file(path, "\n".join(lines))
    staged = _git(root, "ls-files", "-s", "-z", "--", *SECRET_PATHSPECS, stop=stop)
    for entry in staged.split("\0")[:64]:
        meta, _, name = entry.partition("\t")
        fields = meta.split()
        if len(fields) >= 2 and is_secret(name):
            values += secret_values_from_file(name, _git(root, "cat-file", "blob", fields[1], stop=stop))
    return values


# The user part of a URL: `TOKEN` or `user:PASSWORD` before the `@`.
_URL_USERINFO = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([^/@\s\"']+)@")
MAX_CONFIG_BYTES = 1 << 20


def git_url_credentials(root: str, home: str | None) -> list[tuple[str, str]]:
    """The passwords, and the tokens given as a user name, in the URLs of
    the project's .git/config and the user's git config (an `insteadOf`
    URL): `git remote -v` and `git config --list` print them."""
    paths = [os.path.join(root, ".git", "config")]
    if home:
        paths += [os.path.join(home, ".gitconfig"), os.path.join(home, ".config", "git", "config")]
    values: list[tuple[str, str]] = []
    for path in paths:
        read = read_regular(path, MAX_CONFIG_BYTES)
        if read is None:
            continue
        values += [("git-url", secret) for secret in url_credentials(read[0].decode("utf-8", "replace"))]
    return values


def url_credentials(text: str) -> list[str]:
    """The passwords in the URLs in `text` (`scheme://user:PASSWORD@host`),
    and the tokens given as a user name (`https://TOKEN@host`)."""
    found = []
    for userinfo in _URL_USERINFO.findall(text):
        user, colon, password = userinfo.partition(":")
        secret = password if colon else user  # a user name is a secret only token-like
        if len(secret) >= MIN_SECRET_LENGTH and (colon or is_token(secret)):
            found.append(secret)
    return found


# -- the environment Luxe was started with -------------------------------------

# Names that say a variable holds a credential: GITHUB_TOKEN, GH_TOKEN,
# NPM_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD, STRIPE_SECRET_KEY,
# OPENAI_API_KEY, DEPLOY_PRIVATE_KEY, GOOGLE_APPLICATION_CREDENTIALS; and as a
# word of the name: a personal access token (GITHUB_PAT, AZURE_DEVOPS_EXT_PAT),
# a bare key (STRIPE_KEY, RELEASE_SIGNING_KEY), a JWT (CI_JOB_JWT), npm's
# `_auth`, a webhook URL (SLACK_WEBHOOK_URL: its secret is in the path), a
# password by a short name (SMTP_PASS, sshpass's SSHPASS, mysql's MYSQL_PWD).
_CREDENTIAL_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL"
    r"|WEBHOOK|PASS$|(?:^|_)(?:PAT|KEY|JWT|AUTH|PWD)$|_AUTH_CONFIG$",
    re.IGNORECASE,
)
# Bundler's credentials for a gem server: BUNDLE_GEMS__EXAMPLE__COM=user:pass
# (the host's dots written as `__`).
_BUNDLER_HOST = re.compile(r"^BUNDLE_\w+__\w+$", re.IGNORECASE)
# The password of a connection string that is no URL: libpq's
# `password=…`, .NET's `Password=…;`, Azure's `AccountKey=…;`.
_KEYWORD_PASSWORD = re.compile(
    r"(?:^|[\s;])(?:password|pwd|accountkey|sharedaccesskey)\s*=\s*"
    r"""('[^']*'|"[^"]*"|[^\s;'"]+)""",
    re.IGNORECASE,
)
_QUOTES = ("\"", "'")


def environment_credentials(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The credentials in the environment Luxe was started with: the value
    of each variable whose name says it holds one (and that value without
    the quotes `export $(cat .env)` left around it, and each word of a
    document: a PEM key's lines, a JSON key's), and in any variable the password
    of a URL (`DATABASE_URL=postgres://app:PASSWORD@db`) or of a connection
    string (`password=…`, `Password=…;`, `AccountKey=…;`). Tools keep them
    all (gh, aws and npm need theirs); these are what redaction takes out
    of what a tool prints. A path is no credential (`SSH_AUTH_SOCK`, a
    credentials file's name), nor a plain word or a short value
    (`SECRET_SCANNING=enabled`, `DB_PASSWORD=postgres`): redacting those
    would garble every output that holds the word. Every variable's own
    values come before any document's words: redaction takes a bounded
    number of values, and a document of thousands of words must not push
    another credential out."""
    values: list[tuple[str, str]] = []
    words: list[tuple[str, str]] = []
    for name, value in env.items():
        if _CREDENTIAL_NAME.search(name) and not value.startswith("/"):
            values += [(name, form) for form in _whole_forms(value) if is_token(form)]
            words += [(name, word) for word in _document_words(name, value)]
        if _BUNDLER_HOST.match(name):
            values += [(name, form) for form in (value, value.partition(":")[2]) if is_token(form)]
        values += [(name, secret) for secret in url_credentials(value)]
        values += [(name, secret) for secret in keyword_passwords(value)]
    return values + words


def _whole_forms(value: str) -> list[str]:
    """`value` trimmed, and without the quotes around it."""
    whole = value.strip()
    forms = [whole]
    if len(whole) > 1 and whole[0] == whole[-1] and whole[0] in _QUOTES and whole[0] not in whole[1:-1]:
        forms.append(whole[1:-1].strip())
    return forms


def _document_words(name: str, value: str) -> list[str]:
    """Of a document (a value of several lines, or JSON), each word a
    credentials file's would be (secret_values_from_other): a PEM key's
    lines but not its markers, a JSON string's lines, never a whole line
    such as `"type": "…",`. Nothing of a value of one line."""
    whole = value.strip()
    if "\n" not in whole and not whole.startswith("{"):
        return []
    return [word for _, word in secret_values_from_other(name, whole)]


def keyword_passwords(text: str) -> list[str]:
    """The passwords of the `key=value` connection strings in `text`."""
    found = [m.strip("'\"") for m in _KEYWORD_PASSWORD.findall(text)]
    return [secret for secret in found if len(secret) >= MIN_SECRET_LENGTH]


# Variables that name a credentials file though their name says no
# credential: kubectl's (a list), libpq's password file, curl's netrc, npm's
# user config.
_CREDENTIAL_FILE_VARIABLES = frozenset({"KUBECONFIG", "PGPASSFILE", "NETRC", "NPM_CONFIG_USERCONFIG"})


def environment_credential_files(env: Mapping[str, str], cwd: str) -> list[str]:
    """The regular files that the environment names as credentials: each
    path (of a list, as KUBECONFIG gives; a relative one under `cwd`) in a
    variable whose name says credential (`GOOGLE_APPLICATION_CREDENTIALS`,
    `*_PRIVATE_KEY_PATH`) or that a tool reads its credentials from
    (`KUBECONFIG`, `PGPASSFILE`)."""
    found: list[str] = []
    for name, value in env.items():
        if name in _CREDENTIAL_FILE_VARIABLES or _CREDENTIAL_NAME.search(name):
            paths = (os.path.join(cwd, p) for p in value.split(os.pathsep) if p)
            found += [p for p in paths if os.path.isfile(p)]
    return list(dict.fromkeys(found))
