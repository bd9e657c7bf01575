package dev.fencedlock.redlock;

import java.util.Optional;

/**
 * Where the {@code redlock} backend keeps its state on every Redis node, for operators and tests
 * that need to look at it. Every key and channel starts with the key prefix ({@code
 * fencedlock.redlock.key-prefix}, default {@value #DEFAULT_PREFIX}), so applications that share a
 * Redis with different prefixes share no lock and no quarantine record.
 *
 * <table>
 *   <caption>Per lock name, with the default prefix</caption>
 *   <tr><th>name</th><th>type</th><th>meaning</th></tr>
 *   <tr><td>{@code fencedlock:{<name>}:lock}</td><td>string with PX</td><td>the random value of the
 *       acquisition that holds the lock on this node</td></tr>
 *   <tr><td>{@code fencedlock:{<name>}:token}</td><td>string (decimal)</td><td>the highest fencing
 *       token this node has seen for the lock; kept for at least a day after its last use</td></tr>
 *   <tr><td>{@code fencedlock:{<name>}:released}</td><td>pub/sub channel</td><td>a message on each
 *       release, which wakes waiting clients</td></tr>
 * </table>
 *
 * <p>The lock name sits in braces, a Redis Cluster hash tag: the keys of one lock hash to one slot,
 * so a script that touches a lock and its counter stays single-slot, and different locks spread.
 * A name that itself contains {@code '}'} still keeps its keys together (the tag ends at the same
 * place for both), unless the name starts with {@code '}'}. The prefix may not contain braces.
 *
 * <p>And per node, two sorted sets that describe the leases live on it, the restart quarantine's
 * record ({@code dev.fencedlock.redlock.internal.Quarantine}):
 *
 * <table>
 *   <caption>Per node, with the default prefix</caption>
 *   <tr><th>name</th><th>type</th><th>meaning</th></tr>
 *   <tr><td>{@code fencedlock:lease-expiries}</td><td>sorted set</td><td>member: a lock key held on
 *       this node; score: when it expires, in the node's milliseconds since the epoch</td></tr>
 *   <tr><td>{@code fencedlock:lease-lengths}</td><td>sorted set</td><td>the same members; score: the
 *       lease time in milliseconds of the grant or extension that last set the lock key</td></tr>
 * </table>
 *
 * <p>The scripts add a member when they grant or extend, remove it on release, and drop members
 * whose expiry has passed whenever they touch the sets: both hold one member per lease live on the
 * node, nothing that outlives it. An operator may delete them; the next acquisitions rebuild them,
 * and until then clients fall back to their own lease time.
 *
 * <p>In Redis Cluster mode ({@link RedlockSettings#clusterNodes()}) these two node-wide sets would
 * make every script cross-slot; there each lock has its own pair in its slot instead, {@code
 * <lock key>:lease-expiries} and {@code <lock key>:lease-lengths} (e.g. {@code
 * fencedlock:{<name>}:lock:lease-expiries}), emptied and so deleted on release.
 *
 * <p>Immutable and thread-safe.
 */
public final class RedlockKeys {
    /** The default key prefix. */
    public static final String DEFAULT_PREFIX = "fencedlock:";
    /** The longest prefix accepted. */
    public static final int MAX_PREFIX_LENGTH = 128;

    private static final RedlockKeys DEFAULT = new RedlockKeys(DEFAULT_PREFIX);

    private final String prefix;

    private RedlockKeys(String prefix) {
        this.prefix = prefix;
    }

    /** The keys under the default prefix, {@value #DEFAULT_PREFIX}. */
    public static RedlockKeys defaults() {
        return DEFAULT;
    }

    /**
     * The keys under {@code prefix}.
     *
     * @throws IllegalArgumentException naming {@value RedlockSettings#KEY_PREFIX} and the value if
     *     the prefix is empty, longer than {@value #MAX_PREFIX_LENGTH} characters, or contains
     *     whitespace, a control character or a brace
     */
    public static RedlockKeys withPrefix(String prefix) {
        String problem = problem(prefix);
        if (problem != null) {
            throw new IllegalArgumentException(
                    RedlockSettings.KEY_PREFIX + " has '" + prefix + "': " + problem + "; expected e.g. 'orders:'");
        }
        return new RedlockKeys(prefix);
    }

    private static String problem(String prefix) {
        if (prefix == null || prefix.isEmpty()) {
            return "it is empty";
        }
        if (prefix.length() > MAX_PREFIX_LENGTH) {
            return "it is " + prefix.length() + " characters long, more than " + MAX_PREFIX_LENGTH;
        }
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c) || Character.isSpaceChar(c)) {
                return "it contains whitespace or a control character at index " + i;
            }
            if (c == '{' || c == '}') {
                return "it contains a brace at index " + i + " (the backend places the hash tags itself)";
            }
        }
        return null;
    }

    public String prefix() {
        return prefix;
    }

    /** The key holding the lock on each node. */
    public String lock(String lockName) {
        return perLock(lockName, "lock");
    }

    /** The key holding the lock's token counter on each node. */
    public String token(String lockName) {
        return perLock(lockName, "token");
    }

    /** The channel a release of the lock is published on. */
    public String released(String lockName) {
        return perLock(lockName, "released");
    }

    /** The node's sorted set of live lease expiries. */
    public String leaseExpiries() {
        return prefix + "lease-expiries";
    }

    /** The node's sorted set of live lease lengths. */
    public String leaseLengths() {
        return prefix + "lease-lengths";
    }

    /** The lock name whose {@link #released} channel {@code channel} is, if it is one. */
    public Optional<String> lockNameOfReleased(String channel) {
        String start = prefix + "{";
        String end = "}:released";
        if (channel.length() >= start.length() + end.length() && channel.startsWith(start) && channel.endsWith(end)) {
            return Optional.of(channel.substring(start.length(), channel.length() - end.length()));
        }
        return Optional.empty();
    }

    private String perLock(String lockName, String kind) {
        return prefix + "{" + lockName + "}:" + kind;
    }

    /** {@link #lock} under the default prefix. */
    public static String lockKey(String lockName) {
        return DEFAULT.lock(lockName);
    }

    /** {@link #token} under the default prefix. */
    public static String tokenKey(String lockName) {
        return DEFAULT.token(lockName);
    }

    /** {@link #released} under the default prefix. */
    public static String releaseChannel(String lockName) {
        return DEFAULT.released(lockName);
    }

    @Override
    public String toString() {
        return "RedlockKeys[" + prefix + "]";
    }
}
