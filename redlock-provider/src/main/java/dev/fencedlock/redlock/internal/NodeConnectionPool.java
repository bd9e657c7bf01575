package dev.fencedlock.redlock.internal;

import dev.fencedlock.spi.MonotonicClock;
import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.PooledObjectFactory;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The pooled connections of one node ({@link JedisRedisNode}): each opened, probed ({@code INFO
 * server}, {@code INFO memory}) and given the scripts before its first use; borrowed without ever
 * opening one on a thread that asks for idle ones only; dropped when broken, off the caller's
 * thread. Thread-safe.
 */
final class NodeConnectionPool {
    // the node's logger, where operators look for what concerns a node
    private static final Logger log = LoggerFactory.getLogger(JedisRedisNode.class);

    private final ConnectionPool pool;
    private final Executor executor;

    /**
     * @param timeout the longest wait for a connection when one must be opened
     * @param executor where broken connections are invalidated (the pool may open a replacement)
     */
    NodeConnectionPool(
            String name,
            JedisSocketFactory sockets,
            JedisClientConfig config,
            MonotonicClock clock,
            Duration timeout,
            Executor executor) {
        this.pool = new ConnectionPool(new Factory(name, sockets, config, clock), poolConfig(timeout));
        this.executor = executor;
    }

    private static GenericObjectPoolConfig<Connection> poolConfig(Duration timeout) {
        GenericObjectPoolConfig<Connection> config = new GenericObjectPoolConfig<>();
        config.setMaxTotal(256);
        config.setMaxIdle(64);
        config.setMinIdle(0);
        config.setBlockWhenExhausted(true);
        config.setMaxWait(timeout);
        config.setTestOnBorrow(false);
        config.setTestOnReturn(false);
        config.setJmxEnabled(false);
        return config;
    }

    /** Opens one connection into the pool, so that the first calls find it idle. */
    void warmUp() {
        try {
            pool.addObject();
        } catch (Exception e) {
            // the first real call reports the node's failure with its cause
        }
    }

    /**
     * An idle connection, or null if none is idle at this moment. Never opens a connection and never
     * waits: another caller may take the last idle connection between the pool's idle count and the
     * borrow, and the pool would then open one on this thread, holding up the sends to the other
     * nodes for a connect and a handshake.
     */
    NodeConnection borrowIdle() {
        if (pool.getNumIdle() == 0) {
            return null;
        }
        Factory.IDLE_ONLY.set(Boolean.TRUE);
        try {
            return (NodeConnection) pool.borrowObject(Duration.ZERO);
        } catch (NoSuchElementException | NoIdleConnection e) {
            return null;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new JedisConnectionException(e.getMessage(), e);
        } finally {
            Factory.IDLE_ONLY.set(null); // not remove(): that would make the thread's map entry anew on every call
        }
    }

    NodeConnection borrow() {
        Connection connection;
        try {
            connection = pool.borrowObject();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new JedisConnectionException(e.getMessage(), e);
        }
        return (NodeConnection) connection;
    }

    /**
     * Returns a connection to the pool, or drops it if it is broken. Never blocks on the node: the
     * pool may open a replacement while invalidating, so that happens on the executor.
     */
    void giveBack(NodeConnection connection) {
        if (connection.isBroken() || !connection.isConnected()) {
            disconnectQuietly(connection);
            try {
                executor.execute(() -> invalidate(connection));
            } catch (RejectedExecutionException e) {
                invalidate(connection);
            }
            return;
        }
        try {
            pool.returnObject(connection);
        } catch (RuntimeException e) {
            disconnectQuietly(connection);
        }
    }

    private void invalidate(NodeConnection connection) {
        try {
            pool.invalidateObject(connection);
        } catch (Exception e) {
            // a replacement could not be opened; the next call reports the node's state
        }
    }

    static void disconnectQuietly(Connection connection) {
        try {
            connection.disconnect();
        } catch (RuntimeException e) {
            // gone either way
        }
    }

    /** Drops every idle connection: they are as stale as one found cut. */
    void clear() {
        pool.clear();
    }

    void close() {
        pool.close();
    }

    /** Thrown by the factory instead of opening a connection on a thread that wants idle ones only. */
    private static final class NoIdleConnection extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NoIdleConnection() {
            super("no idle connection", null, false, false);
        }
    }

    /**
     * Opens, probes, validates and closes pooled connections. The first connection to an
     * incarnation that may evict keys logs a warning: the warm-up at start-up opens one, so a
     * misconfigured node is reported when the client starts, not at its first refused vote.
     */
    private static final class Factory implements PooledObjectFactory<Connection> {
        /** Set while the current thread borrows idle connections only ({@link #borrowIdle()}). */
        static final ThreadLocal<Boolean> IDLE_ONLY = new ThreadLocal<>();

        private final String name;
        private final JedisSocketFactory sockets;
        private final JedisClientConfig config;
        private final MonotonicClock clock;
        private volatile String warnedRunId;

        Factory(String name, JedisSocketFactory sockets, JedisClientConfig config, MonotonicClock clock) {
            this.name = name;
            this.sockets = sockets;
            this.config = config;
            this.clock = clock;
        }

        @Override
        public PooledObject<Connection> makeObject() {
            if (IDLE_ONLY.get() != null) {
                throw new NoIdleConnection();
            }
            NodeConnection connection = new NodeConnection(sockets, config);
            try {
                connection.probeAndLoad(clock);
            } catch (RuntimeException e) {
                connection.disconnect();
                throw e;
            }
            RedisInstance instance = connection.instance();
            if (instance.evictionPolicy() != null && !instance.runId().equals(warnedRunId)) {
                warnedRunId = instance.runId();
                log.warn(
                        "Redis node {} has maxmemory-policy {}: it may evict lock keys and token counters under"
                                + " memory pressure, so it does not count toward any quorum. Set maxmemory-policy"
                                + " noeviction (or maxmemory 0) on it.",
                        name,
                        instance.evictionPolicy());
            }
            return new DefaultPooledObject<>(connection);
        }

        @Override
        public void destroyObject(PooledObject<Connection> pooled) {
            disconnectQuietly(pooled.getObject());
        }

        @Override
        public boolean validateObject(PooledObject<Connection> pooled) {
            Connection connection = pooled.getObject();
            return connection.isConnected() && !connection.isBroken();
        }

        @Override
        public void activateObject(PooledObject<Connection> pooled) {
            // every call sets its own socket timeout
        }

        @Override
        public void passivateObject(PooledObject<Connection> pooled) {
            ((NodeConnection) pooled.getObject()).markPooled();
        }
    }
}
