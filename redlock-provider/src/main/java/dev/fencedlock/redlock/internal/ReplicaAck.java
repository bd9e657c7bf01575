package dev.fencedlock.redlock.internal;

import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The replica acknowledgement a grant needs ({@code fencedlock.redlock.wait-replicas}): after the
 * acquire script, on the same connection, {@code WAIT replicas timeoutMillis}; a grant that fewer
 * replicas acknowledged within the timeout is no vote (a failed reply, which the algorithm then
 * releases like any failed node). It narrows what a failover can lose: a replica that acknowledged
 * the grant has the lock key if it is promoted. It does not make the grant durable: Sentinel may
 * promote a replica that did not acknowledge, and the acknowledged replica may itself lose it in a
 * restart without persistence. Extensions and releases are not acknowledged.
 *
 * @param replicas how many replicas must acknowledge; 0 turns it off
 * @param timeoutMillis how long {@code WAIT} blocks on the server; shorter than the node timeout, so
 *     that its reply arrives within the time the caller waits for the node
 */
record ReplicaAck(int replicas, int timeoutMillis) {
    static final ReplicaAck NONE = new ReplicaAck(0, 0);

    boolean covers(Script script) {
        return replicas > 0 && script == Script.ACQUIRE;
    }

    CommandArguments command() {
        return new CommandArguments(Protocol.Command.WAIT).add(replicas).add(timeoutMillis);
    }

    /**
     * Null if {@code value} (the acquire script's reply) is no grant or {@code acknowledged} (the
     * reply to {@code WAIT}) reaches {@link #replicas}; else the failure that makes it no vote.
     */
    RuntimeException check(Object value, Object acknowledged) {
        boolean grant =
                value instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Long outcome && outcome != 0;
        long count = acknowledged instanceof Long number ? number : -1;
        if (!grant || count >= replicas) {
            return null;
        }
        return new JedisDataException("granted, but " + Math.max(0, count) + " of the " + replicas
                + " replicas required (fencedlock.redlock.wait-replicas) acknowledged it within " + timeoutMillis
                + " ms; released");
    }
}
