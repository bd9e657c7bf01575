package dev.fencedlock.redlock.internal;

import java.util.Objects;

/**
 * One incarnation of a Redis server, as {@code INFO server} described it when a connection was
 * opened. A TCP connection cannot outlive the server process it was opened to, so every reply read
 * on a connection comes from the incarnation recorded for that connection.
 *
 * @param runId the server's {@code run_id}, new on every start
 * @param startedAtNanos when the incarnation started, on the client's monotonic clock: the probe
 *     time minus {@code uptime_in_seconds}. Redis rounds uptime down, so this is never earlier than
 *     the true start, which keeps the restart quarantine on the safe side.
 * @param probedAtNanos when the probe was answered, on the same clock
 */
record RedisInstance(String runId, long startedAtNanos, long probedAtNanos) {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    RedisInstance {
        Objects.requireNonNull(runId, "runId");
    }

    /**
     * Reads {@code run_id} and {@code uptime_in_seconds} from the text of {@code INFO server}.
     *
     * @throws IllegalStateException if either field is missing
     */
    static RedisInstance fromInfo(String info, long probedAtNanos) {
        String runId = field(info, "run_id");
        long uptimeSeconds = Long.parseLong(field(info, "uptime_in_seconds"));
        return new RedisInstance(runId, probedAtNanos - uptimeSeconds * NANOS_PER_SECOND, probedAtNanos);
    }

    private static String field(String info, String name) {
        String prefix = name + ":";
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
        }
        throw new IllegalStateException("INFO server has no " + name + " field");
    }

    /** The first 8 characters of the run id, enough to tell incarnations apart in a message. */
    String shortRunId() {
        return runId.length() > 8 ? runId.substring(0, 8) : runId;
    }
}
