# The body of the executable the mock answers to a program under, when a test's agent
# records or replays that program's runs (`use(cassette=..., record=...)`, or a library
# of cassettes for a program the binary's own shim does not record). The binary holds
# it and gives it (`mock-agent record --script`): the Python and npm packages ask the
# binary they run, and put above it the lines that set:
#
#   program   the executable's name (claude)         word    `mock-agent WORD` that replays it
#   mock      the mock-agent binary                  real    the real CLI ('' if none found)
#   policy    replay | record | missing | passthrough (missing: record if no cassette yet)
#   mode      the record mode, for the messages      cassette the one cassette ('' with folder)
#   folder    the library's folder of this program: run N of the agent is folder/N.cassette
#   state     a folder to number the runs in         bindir  the agent's folder of executables
#   variable  where the real CLI may be named (MOCK_AGENT_REAL_CLAUDE)
if [ -n "$folder" ]; then
    n=1
    # mkdir claims a number at once, so runs started together get one each.
    until mkdir "$state/$n" 2>/dev/null; do
        if [ ! -d "$state" ]; then
            echo "mock-agent: $state: cannot number the runs of \`$program\` (no such folder)" >&2
            echo "help: the test's agent folder was removed while a program ran; run the test again" >&2
            exit 73
        fi
        n=$((n + 1))
    done
    cassette="$folder/$n.cassette"
    run="run $n of \`$program\` in this test"
else
    run="the run of \`$program\`"
fi
if [ "$policy" = missing ]; then
    if [ -e "$cassette" ]; then policy=replay; else policy=record; fi
fi
if [ "$policy" = replay ]; then
    if [ ! -f "$cassette" ]; then
        echo "mock-agent: no cassette $cassette for $run (record mode $mode replays only)" >&2
        echo "help: record it with record mode once (a library with no cassette of \`$program\` yet) or new_episodes, and the real $program on PATH or in $variable" >&2
        exit 66
    fi
    MOCK_AGENT_CASSETTE="$cassette"
    export MOCK_AGENT_CASSETTE
    exec "$mock" "$word" "$@"
fi
if [ -z "$real" ]; then
    echo "mock-agent: record mode $mode runs the real $program for $run, and none was found" >&2
    echo "help: put the real $program on the PATH the test starts with, set $variable=PATH, or give use() real=PATH" >&2
    exit 64
fi
# The real CLI gets the test's environment but the mock's own settings, and the PATH
# without the agent's folder (where $program is the mock).
for name in $(env | sed -n 's/^\(MOCK_AGENT_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$name"
done
PATH="${PATH#"$bindir:"}"
export PATH
if [ "$policy" = passthrough ]; then
    exec "$real" "$@"
fi
if ! mkdir -p "${cassette%/*}"; then
    echo "mock-agent: cannot create the folder of $cassette" >&2
    echo "help: give a cassette or library in a folder this test may write to" >&2
    exit 73
fi
set -- -- "$real" "$@"
# The model APIs' keys stay out of the cassette (CURSOR_API_KEY always does).
for name in ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN OPENAI_API_KEY CODEX_API_KEY GEMINI_API_KEY GOOGLE_API_KEY; do
    eval "value=\${$name:-}"
    if [ -n "$value" ]; then
        set -- --redact-env "$name" "$@"
    fi
done
exec "$mock" record --no-progress --out "$cassette" "$@"
