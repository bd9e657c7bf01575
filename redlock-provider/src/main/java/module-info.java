/**
 * The {@code redlock} backend: Redlock over independent Redis masters, one master found through
 * Sentinel, or a Redis Cluster. Users reach it through {@code fencedlock.backend=redlock} or
 * {@link dev.fencedlock.redlock.RedlockLocks}; the algorithm, the node I/O and the Lua scripts stay
 * inside.
 */
module dev.fencedlock.redlock {
    requires transitive dev.fencedlock;
    requires redis.clients.jedis;
    requires org.apache.commons.pool2;
    requires org.slf4j;

    exports dev.fencedlock.redlock;

    provides dev.fencedlock.spi.LockProviderFactory with
            dev.fencedlock.redlock.internal.RedlockProviderFactory;
}
