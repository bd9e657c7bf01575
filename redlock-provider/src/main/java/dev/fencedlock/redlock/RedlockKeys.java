package dev.fencedlock.redlock;

/**
 * Where the {@code redlock} backend keeps its state on every Redis node, for operators and tests
 * that need to look at it. All names start with {@value #PREFIX}; the three kinds have distinct
 * second parts, so no lock name can make one collide with another.
 *
 * <table>
 *   <caption>Per lock name</caption>
 *   <tr><th>name</th><th>type</th><th>meaning</th></tr>
 *   <tr><td>{@code fencedlock:lock:<name>}</td><td>string with PX</td><td>the random value of the
 *       acquisition that holds the lock on this node</td></tr>
 *   <tr><td>{@code fencedlock:token:<name>}</td><td>string (decimal)</td><td>the highest fencing token
 *       this node has seen for the lock; kept for at least a day after its last use</td></tr>
 *   <tr><td>{@code fencedlock:released:<name>}</td><td>pub/sub channel</td><td>a message on each
 *       release, which wakes waiting clients</td></tr>
 * </table>
 *
 * <p>And one key per node, {@value #LONGEST_LEASE}: the longest lease time in milliseconds any
 * client has asked this node for (acquisitions and extensions), kept without expiry. Clients read
 * it to size the default restart quarantine. An operator who shortens every lease for good may
 * delete it on every node; it is rebuilt by the next acquisitions.
 */
public final class RedlockKeys {
    public static final String PREFIX = "fencedlock:";
    /** The key on each node holding the longest lease time asked of it, in milliseconds. */
    public static final String LONGEST_LEASE = PREFIX + "longest-lease";

    private RedlockKeys() {}

    /** The key holding the lock on each node. */
    public static String lockKey(String lockName) {
        return PREFIX + "lock:" + lockName;
    }

    /** The key holding the lock's token counter on each node. */
    public static String tokenKey(String lockName) {
        return PREFIX + "token:" + lockName;
    }

    /** The channel a release of the lock is published on. */
    public static String releaseChannel(String lockName) {
        return PREFIX + "released:" + lockName;
    }
}
