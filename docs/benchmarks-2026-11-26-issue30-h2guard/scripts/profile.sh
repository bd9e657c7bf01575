#!/usr/bin/env bash
# profile.sh JAR NAME BENCH PARAMS... : one JMH fork, JFR (1 ms sampling) over the measurement, and -prof gc
# The JFR settings are the JDK's own profile.jfc with Java method sampling every 1 ms instead of 10 ms.
set -euo pipefail
jar="$1"; name="$2"; bench="$3"; shift 3
out=/tmp/h2guard/prof-$name
mkdir -p "$out"
if [ ! -f /tmp/h2guard/fast.jfc ]; then
  jfc="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")/lib/jfr/profile.jfc"
  python3 - "$jfc" /tmp/h2guard/fast.jfc <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r'(<event name="jdk.ExecutionSample">.*?<setting name="period"[^>]*>)([^<]*)(</setting>)', r'\g<1>1 ms\g<3>', s, flags=re.S)
open(sys.argv[2], 'w').write(s)
PY
fi
JAVA_TOOL_OPTIONS=-Djmh.ignoreLock=true java -jar "$jar" "$bench" -p database=h2 "$@" -f 1 -wi ${WI:-12} -w 3 -i ${MI:-3} -r 5 \
  -prof gc -jvmArgsAppend "-Xms1g -Xmx1g -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -XX:StartFlightRecording=settings=/tmp/h2guard/fast.jfc,delay=${DELAY:-38}s,duration=${DUR:-14}s,filename=$out/rec.jfr" \
  -rf json -rff "$out/result.json" > "$out/log.txt" 2>&1
grep -E "^Benchmark|UpdateBenchmark.update" "$out/log.txt" | tail -12
ls -la "$out"
