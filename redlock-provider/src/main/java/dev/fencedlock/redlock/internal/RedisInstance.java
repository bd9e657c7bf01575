package dev.fencedlock.redlock.internal;

import java.util.Objects;

/**
 * One incarnation of a Redis server, as {@code INFO server} described it when a connection was
 * opened. A TCP connection cannot outlive the server process it was opened to, so every reply read
 * on a connection comes from the incarnation recorded for that connection.
 *
 * @param runId the server's {@code run_id}, new on every start, followed by {@code /} and its
 *     replication id when {@code INFO replication} was read (new on every promotion)
 * @param startedAtNanos when the incarnation started at the latest, on the client's monotonic clock:
 *     the probe time minus one second less than {@code uptime_in_seconds}. Redis reports the
 *     difference of two truncated wall-clock seconds (now and the start), which runs up to a second
 *     ahead of the true uptime: just after a start at 10.9 s it reports 1 at 11.0 s. Taking the
 *     reported value as the uptime would date the start up to a second early and end the restart
 *     quarantine that much too soon; one second less is never more than the true uptime.
 * @param probedAtNanos when the probe was answered, on the same clock
 * @param evictionPolicy the server's {@code maxmemory-policy} if it may evict keys (a memory limit
 *     is set and the policy is not {@code noeviction}), with the limit; null if the server never
 *     evicts or did not say
 * @param persistsEveryWrite whether the server said it fsyncs every write to its append-only file
 *     ({@link #withPersistence})
 * @param promoted whether this master was promoted from a replica ({@code master_replid2} set), so
 *     that its start is dated from the probe ({@link #fromInfo(String, String, long)}) unless {@link
 *     #promotedBy} dates the promotion
 */
record RedisInstance(
        String runId,
        long startedAtNanos,
        long probedAtNanos,
        String evictionPolicy,
        boolean persistsEveryWrite,
        boolean promoted) {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final String NO_REPLICATION_ID = "0000000000000000000000000000000000000000";

    RedisInstance {
        Objects.requireNonNull(runId, "runId");
    }

    /** An incarnation that never evicts keys and does not persist every write. */
    RedisInstance(String runId, long startedAtNanos, long probedAtNanos) {
        this(runId, startedAtNanos, probedAtNanos, null, false);
    }

    /** An incarnation that was not promoted from a replica. */
    RedisInstance(
            String runId, long startedAtNanos, long probedAtNanos, String evictionPolicy, boolean persistsEveryWrite) {
        this(runId, startedAtNanos, probedAtNanos, evictionPolicy, persistsEveryWrite, false);
    }

    /** An incarnation that does not persist every write. */
    RedisInstance(String runId, long startedAtNanos, long probedAtNanos, String evictionPolicy) {
        this(runId, startedAtNanos, probedAtNanos, evictionPolicy, false);
    }

    /**
     * This incarnation with what {@code INFO persistence} and {@code CONFIG GET appendfsync} said:
     * it persists every write before answering if its append-only file is on ({@code
     * aof_enabled:1}), the last write to it succeeded ({@code aof_last_write_status:ok}), it is not
     * still loading ({@code loading:0}) and it fsyncs on every write ({@code appendfsync always}).
     * Such a node that restarts comes back with every lock key it granted, so it needs no restart
     * quarantine. A node that does not say so (for example one whose {@code CONFIG} command is
     * renamed or not permitted: {@code appendfsync} null) is taken as not persisting.
     */
    RedisInstance withPersistence(String persistence, String appendfsync) {
        boolean every = "1".equals(field(persistence, "aof_enabled"))
                && "ok".equals(field(persistence, "aof_last_write_status"))
                && "0".equals(field(persistence, "loading"))
                && "always".equals(appendfsync);
        return new RedisInstance(runId, startedAtNanos, probedAtNanos, evictionPolicy, every, promoted);
    }

    /**
     * Reads {@link #fromInfo(String, long)} and, from the text of {@code INFO replication}, whether
     * this master was promoted from a replica: it then has a {@code master_replid2}, the replication
     * id of the master it followed. A promoted replica may lack lock keys its old master granted
     * (replication is asynchronous), so it is a new incarnation though its process and uptime are
     * old: it is identified by run id and replication id together, and its start is dated no earlier
     * than this probe, since the promotion time is nowhere to be read.
     */
    static RedisInstance fromInfo(String server, String replication, long probedAtNanos) {
        RedisInstance instance = fromInfo(server, probedAtNanos);
        String replicationId = field(replication, "master_replid");
        String previousId = field(replication, "master_replid2");
        if (replicationId == null) {
            return instance;
        }
        boolean promoted = previousId != null && !previousId.equals(NO_REPLICATION_ID);
        return new RedisInstance(
                instance.runId() + "/" + replicationId,
                promoted ? probedAtNanos : instance.startedAtNanos(),
                probedAtNanos,
                instance.evictionPolicy(),
                false,
                promoted);
    }

    /**
     * This promoted master with its promotion dated by someone who saw it: the start becomes {@code
     * promotedAtNanos} when that is earlier than the probe. Only for a time no earlier than the
     * promotion of this very incarnation (its replication id), such as the Sentinels' switch to it
     * ({@link SentinelRedisNode}); an instance that was not promoted is returned unchanged, since
     * its start is its process start, which no Sentinel dates.
     */
    RedisInstance promotedBy(long promotedAtNanos) {
        if (!promoted || promotedAtNanos - startedAtNanos >= 0) {
            return this;
        }
        return new RedisInstance(runId, promotedAtNanos, probedAtNanos, evictionPolicy, persistsEveryWrite, true);
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
        long surelyUpNanos = Math.max(0, uptimeSeconds - 1) * NANOS_PER_SECOND;
        return new RedisInstance(runId, probedAtNanos - surelyUpNanos, probedAtNanos, evictionPolicy(info));
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
