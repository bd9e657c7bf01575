package dev.fencedlock.redlock.internal;

import java.net.SocketTimeoutException;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The node timeout as both Redis paths apply it: the longest wait for one reply, counted from the
 * send. Immutable.
 *
 * @param nanos the timeout
 * @param millis the same, rounded up to whole milliseconds (at least 1), for socket timeouts
 */
record NodeTimeout(long nanos, int millis) {

    static NodeTimeout ofNanos(long nanos) {
        return new NodeTimeout(nanos, (int) Math.min(Integer.MAX_VALUE, Math.max(1, (nanos + 999_999) / 1_000_000)));
    }

    /** What is left of the timeout of a call sent at {@code sentAt}, as a socket timeout (at least 1 ms). */
    int millisLeft(long sentAt) {
        long left = sentAt + nanos - System.nanoTime();
        return (int) Math.max(1, Math.min(millis, (left + 999_999) / 1_000_000));
    }

    /** A socket timeout said as what it means here; any other failure as it is. */
    RuntimeException describe(RuntimeException e) {
        if (e.getCause() instanceof SocketTimeoutException) {
            return new JedisConnectionException("no reply within " + millis + " ms", e.getCause());
        }
        return e;
    }
}
