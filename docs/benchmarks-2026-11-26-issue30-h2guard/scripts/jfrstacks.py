"""The jdk.ExecutionSample stacks of a JFR file, leaf first, as lists of 'package.Class.method'."""
import re
import subprocess


def load(jfr):
    out = subprocess.run(['jfr', 'print', '--events', 'jdk.ExecutionSample', '--stack-depth', '300', jfr],
                         capture_output=True, text=True, check=True).stdout
    samples, cur = [], None
    for line in out.splitlines():
        s = line.strip()
        if s.startswith('stackTrace = ['):
            cur = []
        elif cur is not None:
            if s.startswith(']'):
                samples.append(cur)
                cur = None
            else:
                m = re.match(r'([\w$.<>/]+)\(', s)
                if m:
                    cur.append(m.group(1))
    return samples
