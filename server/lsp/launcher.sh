#!/usr/bin/env sh
":" /*
# The POSIX start of apl-language-server (server/lsp/snapshot-file.ts): from the start-up snapshot
# when the stamp beside it names the node on PATH (its inode, and the blob is newer than it), the
# blob's length and CRC (cksum) are the stamp's, and NODE_OPTIONS is empty, since node refuses a
# snapshot of another build of node or other V8 flags, and crashes inside V8 on a damaged one;
# otherwise this file runs as the node script it also is (the shell part is a JavaScript comment,
# so it must not contain the two characters that end one).
p=$(readlink -f "$0" 2>/dev/null) || p=$0
d=${p%/*} && [ "$d" != "$p" ] || d=.
n=$(command -v node)
b="$d/language-server.snapshot.blob"
if [ -z "$NODE_OPTIONS" ] && [ -n "$n" ] && [ "$b" -nt "$n" ] && read -r stamp sum 2>/dev/null <"$d/language-server.snapshot.stamp"; then
    i=$(ls -iL "$n" 2>/dev/null) && i=${i#"${i%%[0-9]*}"} && [ "${i%% *}" = "$stamp" ] && [ -n "$sum" ] && [ "$(cksum <"$b")" = "$sum" ] && exec "$n" --snapshot-blob "$b" "$0" "$@"
fi
APL_LANGUAGE_SERVER_SNAPSHOT=stale exec node "$0" "$@"
*/
