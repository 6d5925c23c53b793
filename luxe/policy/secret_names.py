"""Secret files by name: which file names and paths are hard-denied
secrets (`.env`, private keys, credential files), and whether a shell glob
could name one. Pure.
"""

from __future__ import annotations

import fnmatch
from pathlib import PurePosixPath

# `.env` and `.env.*` hold secrets by convention; these suffixes are the
# conventional *templates* checked into repositories, so they stay readable.
ENV_TEMPLATE_SUFFIXES = frozenset({"example", "sample", "template"})

# Private SSH keys by their default names (the `.pub` halves are public).
SSH_PRIVATE_KEY_NAMES = frozenset(
    {"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "identity"}
)

# Files that hold credentials as plainly as a `.env` does.
CREDENTIAL_FILE_NAMES = frozenset(
    {".netrc", "_netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc", "credentials.json"}
)

# Private key material by extension (TLS keys and certificates with their
# keys, PKCS#12 bundles).
PRIVATE_KEY_SUFFIXES = (".key", ".pem", ".p12", ".pfx")

# Credential files known by their directory and name (lower case).
CREDENTIAL_PATHS = frozenset(
    {
        (".aws", "credentials"),
        (".docker", "config.json"),
        ("gh", "hosts.yml"),
        (".kube", "config"),
        ("git", "credentials"),
        (".cargo", "credentials"),
        (".cargo", "credentials.toml"),
        (".gem", "credentials"),
    }
)

# Dot-file secret names a shell glob is tested against: `cat .e*` could expand
# to one of these. Only globs that start with a literal `.` can (the shell
# never expands `*` to a dot-file); other globs are expanded against the
# filesystem instead (see `facts.py`).
SAMPLE_SECRET_DOTFILES = (
    ".env",
    ".envrc",
    ".env.local",
    ".env.production",
    ".env.development",
    ".env.test",
    ".netrc",
    ".pgpass",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
)

GLOB_CHARS = frozenset("*?[")


def is_secret_name(name: str) -> bool:
    """True when a file called `name` (a basename) is a hard-denied secret.

    Case-insensitive, since `.ENV` is the same file on a case-insensitive
    filesystem and means the same thing everywhere else.
    """
    lower = name.lower()
    if lower in (".env", ".envrc"):  # .envrc: direnv's, `export KEY=value`
        return True
    if lower.startswith(".env."):
        suffix = lower[len(".env.") :]
        return bool(suffix) and suffix not in ENV_TEMPLATE_SUFFIXES
    if lower in SSH_PRIVATE_KEY_NAMES or lower in CREDENTIAL_FILE_NAMES:
        return True
    return lower.endswith(PRIVATE_KEY_SUFFIXES) and len(lower) > 4


def is_secret_path(path: str) -> bool:
    """True when `path` (any form: relative, absolute, with `..`) names a
    secret file by its last component, or lies in `.aws/credentials` or a
    `.ssh` directory's private keys."""
    parts = PurePosixPath(path.rstrip("/") or "/").parts
    if not parts:
        return False
    name = parts[-1]
    if name in (".", ".."):
        return False
    if is_secret_name(name):
        return True
    lower_parts = [p.lower() for p in parts]
    if len(lower_parts) >= 2 and (lower_parts[-2], lower_parts[-1]) in CREDENTIAL_PATHS:
        return True
    # Any non-public file in ~/.ssh other than the well-known public ones.
    return (
        len(lower_parts) >= 2
        and lower_parts[-2] == ".ssh"
        and lower_parts[-1].startswith("id_")
        and not lower_parts[-1].endswith(".pub")
    )


# Secret file names a glob with an unknown part (`*nv` from `${X}nv`) is
# tested against.
SAMPLE_SECRET_NAMES = (
    *SAMPLE_SECRET_DOTFILES,
    *sorted(SSH_PRIVATE_KEY_NAMES),
    "_netrc",
    "credentials.json",
    "server.pem",
    "server.key",
    "bundle.p12",
    "bundle.pfx",
)


def could_name_secret(pattern: str) -> bool:
    """True when a file-name glob (`*nv`, `.e*`, `id_*`) matches some secret
    file name. Case-insensitive. Pure."""
    lower = pattern.lower()
    return any(fnmatch.fnmatchcase(name, lower) for name in SAMPLE_SECRET_NAMES)


def glob_may_name_secret(word: str) -> bool:
    """True when a shell glob that starts with a dot (`.e*`, `.en?`,
    `.[e]nv`) could expand to a secret dot-file name. Pure."""
    if not GLOB_CHARS & set(word):
        return False
    base = word.rstrip("/").rsplit("/", 1)[-1]
    if not base.startswith("."):
        return False
    return any(
        fnmatch.fnmatchcase(sample, base) or fnmatch.fnmatchcase(sample, base.lower())
        for sample in SAMPLE_SECRET_DOTFILES
    )
