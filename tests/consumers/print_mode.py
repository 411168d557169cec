"""What the print-mode example consumers share, so that each of their files holds only
how it reads the agent's stream (and the bug planted there): starting the agent, and
the plain ending of a consumer that checks the exit code and the result (`report`;
`finish` for one that takes the last successful `result` of the events it read), and
the whole lines of stdout with their JSON (`whole_lines`).

Not a consumer: imported by them (`from print_mode import report, start`).
"""

import json
import subprocess
import sys

#: What `whole_lines` gives for a line that is not JSON.
NOT_JSON = object()


def start(stderr=subprocess.DEVNULL, flags=(), prompt=None):
    """`cursor-agent -p --output-format stream-json FLAGS... PROMPT`, PROMPT `prompt` or
    else the consumer's first argument (default "hi"); stdin closed, stdout piped,
    stderr as `stderr` says (closed by default)."""
    if prompt is None:
        prompt = sys.argv[1] if len(sys.argv) > 1 else "hi"
    return subprocess.Popen(
        ["cursor-agent", "-p", "--output-format", "stream-json", *flags, prompt],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr,
    )


def report(code, answer):
    """A consumer's ending: the answer on stdout and 0 when the agent exited 0 with a
    result, else why not on stderr and 1."""
    if code != 0 or answer is None:
        sys.stderr.write("consumer: agent failed: exit %d, %s\n" % (code, "result" if answer is not None else "no result"))
        return 1
    sys.stdout.write(answer + "\n")
    return 0


def finish(proc, events):
    """Reads `events` (the events a consumer made of the agent's stdout, in order) to
    their end, then waits for the agent: `report` of its exit code and the last
    successful `result`'s text."""
    answer = None
    for event in events:
        if event.get("type") == "result" and not event.get("is_error"):
            answer = event.get("result")
    return report(proc.wait(), answer)


def whole_lines(stdout):
    """Each whole line of `stdout` (a last line cut before its newline left out), with
    its JSON value, or `NOT_JSON`."""
    for raw in stdout:
        if not raw.endswith(b"\n"):
            continue
        try:
            yield raw, json.loads(raw.decode("utf-8"))
        except ValueError:
            yield raw, NOT_JSON
