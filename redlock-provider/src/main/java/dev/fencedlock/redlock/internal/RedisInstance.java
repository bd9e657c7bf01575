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
 * @param evictionPolicy the server's {@code maxmemory-policy} if it may evict keys (a memory limit
 *     is set and the policy is not {@code noeviction}), with the limit; null if the server never
 *     evicts or did not say
 */
record RedisInstance(String runId, long startedAtNanos, long probedAtNanos, String evictionPolicy) {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    RedisInstance {
        Objects.requireNonNull(runId, "runId");
    }

    /** An incarnation that never evicts keys. */
    RedisInstance(String runId, long startedAtNanos, long probedAtNanos) {
        this(runId, startedAtNanos, probedAtNanos, null);
    }

    /**
     * Reads {@code run_id} and {@code uptime_in_seconds} from the text of {@code INFO server}, and
     * {@code maxmemory} and {@code maxmemory_policy} from that of {@code INFO memory} if present.
     *
     * @throws IllegalStateException if {@code run_id} or {@code uptime_in_seconds} is missing
     */
    static RedisInstance fromInfo(String info, long probedAtNanos) {
        String runId = required(info, "run_id");
        long uptimeSeconds = Long.parseLong(required(info, "uptime_in_seconds"));
        return new RedisInstance(
                runId, probedAtNanos - uptimeSeconds * NANOS_PER_SECOND, probedAtNanos, evictionPolicy(info));
    }

    /**
     * Any policy but {@code noeviction} lets a server under its memory limit delete keys that have
     * not expired: a held lock key (a second holder can then be granted) or a token counter. A
     * limit of 0 means no limit on 64-bit servers, so nothing is evicted whatever the policy.
     */
    private static String evictionPolicy(String info) {
        String limit = field(info, "maxmemory");
        String policy = field(info, "maxmemory_policy");
        if (limit == null || policy == null || policy.equals("noeviction")) {
            return null;
        }
        try {
            return Long.parseLong(limit) > 0 ? policy + " with maxmemory " + limit : null;
        } catch (NumberFormatException e) {
            return policy + " with maxmemory " + limit;
        }
    }

    private static String required(String info, String name) {
        String value = field(info, name);
        if (value == null) {
            throw new IllegalStateException("INFO server has no " + name + " field");
        }
        return value;
    }

    private static String field(String info, String name) {
        String prefix = name + ":";
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
        }
        return null;
    }

    /** The first 8 characters of the run id, enough to tell incarnations apart in a message. */
    String shortRunId() {
        return runId.length() > 8 ? runId.substring(0, 8) : runId;
    }
}
