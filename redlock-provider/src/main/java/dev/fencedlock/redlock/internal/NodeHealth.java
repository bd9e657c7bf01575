package dev.fencedlock.redlock.internal;

import dev.fencedlock.redlock.RedlockSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The restart quarantine of one node: which incarnation of it this client trusts, and since when.
 *
 * <p>A node that restarted without durable storage has forgotten the locks it granted. If it voted
 * at once, a second client could gather a majority while the first still holds a valid lease on the
 * same majority minus that node. So a node's replies count toward a quorum only once its current
 * incarnation has been up for the quarantine ({@link Quarantine}). Incarnations are
 * told apart by {@code run_id}; the start of an incarnation is taken as the later of what its
 * uptime says and the last time the previous incarnation answered, so a node that restarted
 * while this client was watching it is kept out for the full quarantine even if its clock says
 * otherwise. A node this client has never seen before is judged by its uptime alone.
 *
 * <p>Thread-safe. The hot path (a reply from the incarnation already known) is a few volatile reads,
 * a string comparison, one volatile write and a pass over the quarantine's per-node readings.
 */
final class NodeHealth {
    private static final Logger log = LoggerFactory.getLogger(NodeHealth.class);

    private final int index;
    private final String node;
    private volatile Trusted current;
    private volatile long lastAnsweredNanos;

    /**
     * @param seenRestarting whether this client saw the previous incarnation answer; if not, the
     *     start is dated by the uptime alone, which Redis reports in whole seconds, so two clients may
     *     date it up to a second apart
     */
    private record Trusted(RedisInstance instance, long startedAtNanos, boolean seenRestarting) {}

    /** The run_id of the last incarnation whose quarantine was logged: one warning per incarnation. */
    private volatile String warnedRunId;

    /**
     * @param index the node's place in the node list, as the {@link Quarantine} numbers nodes
     * @param node the node's name for messages
     */
    NodeHealth(int index, String node) {
        this.index = index;
        this.node = node;
    }

    /**
     * Decides whether a reply from {@code instance} counts toward a quorum. The node must have been
     * up for the quarantine already when the attempt began ({@code attemptStartNanos}), not merely
     * when it answered: the token argument in {@link RedlockLock} counts from the attempt's start.
     *
     * <p>A node that may evict keys under memory pressure never counts: it can drop a held lock
     * key, which lets a second client in while the first holder's lease is valid, or a token
     * counter, which the token argument assumes nothing deletes.
     *
     * @param nowNanos when the reply was read
     * @param quarantine sizes the quarantine of the incarnation, with what is known now
     * @return null if it counts, else the reason it does not
     */
    RuntimeException exclusion(RedisInstance instance, long attemptStartNanos, long nowNanos, Quarantine quarantine) {
        Trusted trusted = current;
        if (trusted == null || !trusted.instance().runId().equals(instance.runId())) {
            trusted = adopt(instance);
            if (trusted == null) {
                return new NodeQuarantinedException(
                        "answered on a connection to an earlier incarnation (run_id " + instance.shortRunId() + ")");
            }
        }
        lastAnsweredNanos = nowNanos;
        if (instance.evictionPolicy() != null) {
            return new EvictingNodeException(instance.evictionPolicy());
        }
        // no quarantine (off, or a node that persists every write): also an incarnation that
        // started during the attempt counts, as nothing it forgot is waited for
        if (quarantine.none(instance)) {
            return null;
        }
        long age = attemptStartNanos - trusted.startedAtNanos();
        long quarantineNanos = quarantine.nanosAfterStart(index, instance, trusted.startedAtNanos(), nowNanos);
        if (age >= quarantineNanos) {
            return null;
        }
        long leftMillis = (quarantineNanos - age + 999_999) / 1_000_000;
        String state = trusted.instance().promoted()
                ? "was promoted from a replica (run_id " + trusted.instance().shortRunId() + ") "
                        + Math.max(0, age) / 1_000_000 + " ms before the attempt, as far as this client knows,"
                        + " and may lack the old master's last grants"
                : (trusted.seenRestarting() ? "restarted" : "started")
                        + " (run_id " + trusted.instance().shortRunId() + ") "
                        + Math.max(0, age) / 1_000_000 + " ms before the attempt"
                        + (trusted.seenRestarting() ? "" : ", judged by its uptime (whole seconds)");
        warnOnce(trusted, state, leftMillis, quarantine);
        return new NodeQuarantinedException(
                state + "; out of the quorum for another " + leftMillis + " ms of restart quarantine");
    }

    /**
     * One warning per incarnation, not per attempt: a job that retries every second while a node
     * that just started sits out its quarantine learns why, how long, and what to set in development.
     */
    private void warnOnce(Trusted trusted, String state, long leftMillis, Quarantine quarantine) {
        String runId = trusted.instance().runId();
        if (runId.equals(warnedRunId)) {
            return;
        }
        synchronized (this) {
            if (runId.equals(warnedRunId)) {
                return;
            }
            warnedRunId = runId;
        }
        log.warn(
                "Redis node {} {}: it stays out of the quorum for about {} ms more (restart quarantine: {}), so that"
                        + " no lease it may have forgotten is granted twice. Acquisitions that need it fail until then."
                        + " In development, {}=0s turns the quarantine off. (Logged once per node start.)",
                node,
                state,
                leftMillis,
                quarantine.describe(),
                RedlockSettings.RESTART_QUARANTINE);
    }

    /** Switches to a newer incarnation; null if {@code instance} is older than the trusted one. */
    private synchronized Trusted adopt(RedisInstance instance) {
        Trusted trusted = current;
        if (trusted != null && trusted.instance().runId().equals(instance.runId())) {
            return trusted;
        }
        if (trusted != null && instance.probedAtNanos() - trusted.instance().probedAtNanos() < 0) {
            return null;
        }
        long startedAt = instance.startedAtNanos();
        if (trusted != null) {
            startedAt = Math.max(startedAt, lastAnsweredNanos);
            log.info(
                    "Redis node {} restarted (run_id {} -> {}); it stays out of the quorum until its restart"
                            + " quarantine has passed",
                    node,
                    trusted.instance().shortRunId(),
                    instance.shortRunId());
        }
        current = new Trusted(instance, startedAt, trusted != null);
        return current;
    }
}
