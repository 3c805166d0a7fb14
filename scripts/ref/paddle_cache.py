"""The one cache lookup of the Python scripts, the same as core/hub.CacheDir
(Go's os.UserCacheDir on Linux), scripts/lib/cache.mjs and the shell scripts'
${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}."""
import os


def cache_dir():
    """$PADDLE_CACHE, else $XDG_CACHE_HOME/paddle when it is absolute, else ~/.cache/paddle."""
    if os.environ.get("PADDLE_CACHE"):
        return os.environ["PADDLE_CACHE"]
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return os.path.join(xdg, "paddle")
    return os.path.join(os.path.expanduser("~"), ".cache", "paddle")
