// The one cache lookup of the Node scripts, the same as core/hub.CacheDir
// (Go's os.UserCacheDir on Linux) and the shell scripts'
// ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}: $PADDLE_CACHE, else
// $XDG_CACHE_HOME/paddle when XDG_CACHE_HOME is an absolute path, else
// ~/.cache/paddle. No other folder is searched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

export function cacheDir() {
  if (process.env.PADDLE_CACHE) return process.env.PADDLE_CACHE;
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'paddle');
  return path.join(os.homedir(), '.cache', 'paddle');
}

// loadOrt loads onnxruntime-node from $ORT_NODE_DIR, else from the cache's
// npm/ortnode-1.30.0 (scripts/ref/setup_ort.sh puts it there).
export function loadOrt() {
  const dirs = [process.env.ORT_NODE_DIR, path.join(cacheDir(), 'npm', 'ortnode-1.30.0')].filter(Boolean);
  for (const dir of dirs) {
    if (fs.existsSync(path.join(dir, 'node_modules', 'onnxruntime-node'))) {
      return createRequire(path.join(dir, 'package.json'))('onnxruntime-node');
    }
  }
  throw new Error(`onnxruntime-node not found in ${dirs.join(', ')}; run scripts/ref/setup_ort.sh`);
}
