package dev.fencedlock.redlock.internal;

import dev.fencedlock.redlock.RedisNodeAddress;
import dev.fencedlock.spi.MonotonicClock;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.DefaultJedisSocketFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.SslVerifyMode;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One Redis master reached through a Jedis connection pool.
 *
 * <p>The fast path runs on the caller's thread: when the pool has an idle connection, {@link #send}
 * takes it (never opening one on the caller, even when another caller took the last idle one
 * first), writes {@code EVALSHA} and returns; {@link Pending#await()} reads the reply with a socket timeout
 * of what is left of the node timeout. No thread hand-off, so N nodes cost N writes and N reads.
 *
 * <p>When no connection is idle (start-up, more concurrent callers than connections, or after a
 * node failure broke them), opening one may take up to a node timeout per step (connect, handshake,
 * {@code INFO server}). That work goes to the shared executor so that it never stacks up on the
 * caller: the caller waits at most one node timeout for the reply, and a connection that arrives
 * later stays in the pool for the next call without sending the stale command.
 *
 * <p>Every connection runs {@code INFO server} and {@code INFO memory} and loads the scripts when
 * it opens, and asks again when a call meets {@code NOSCRIPT}; that tells the replies read on it
 * which incarnation of the server they come from, and whether it may evict keys, without an extra
 * round trip per call. (A TCP connection dies with the server process, so this is
 * exact unless a proxy keeps client connections open across a server restart and another client
 * reloaded the scripts first: put no such proxy between clients and nodes.) An idle connection
 * found cut (the server restarted or closed it) is replaced once, at once: the pool's other idle
 * connections are dropped too, as they are as stale.
 *
 * <p>Lease housekeeping takes the other path, {@link #submit}: a {@link NodePipeline} with one
 * connection and one thread of its own.
 */
final class JedisRedisNode implements RedisNode {
    private final String name;
    private final long timeoutNanos;
    private final NodeTimeout nodeTimeout;
    private final NodeConnectionPool pool;
    private final Executor executor;
    private final JedisSocketFactory sockets;
    private final JedisClientConfig config;
    private final MonotonicClock clock;
    private final NodePipeline pipeline;
    private final ReplicaAck ack;

    /**
     * @param timeout connect timeout, socket timeout and the longest wait for one reply
     * @param tls for {@code rediss://}; null for full verification (certificate and host name)
     *     against the JVM's default trust store
     * @param clock the clock {@link RedisInstance} times are read on
     * @param executor where connections are opened when none is idle
     * @param recordKeys the node's records of live leases, which batched extensions update
     * @param ack the replica acknowledgement every grant needs ({@link ReplicaAck#NONE}: none)
     */
    JedisRedisNode(
            RedisNodeAddress address,
            Duration timeout,
            SslOptions tls,
            MonotonicClock clock,
            Executor executor,
            byte[][] recordKeys,
            ReplicaAck ack) {
        this.ack = ack;
        this.name = address.toString();
        this.timeoutNanos = timeout.toNanos();
        this.nodeTimeout = NodeTimeout.ofNanos(timeoutNanos);
        int timeoutMillis = nodeTimeout.millis();
        this.executor = executor;
        this.clock = clock;
        this.config = clientConfig(address, timeoutMillis, tls);
        this.sockets = new DefaultJedisSocketFactory(new HostAndPort(address.host(), address.port()), config);
        this.pool = new NodeConnectionPool(name, sockets, config, clock, timeout, executor);
        this.pipeline = new NodePipeline(
                name,
                "fencedlock-redlock-pipeline-" + name,
                this::openProbedConnection,
                clock,
                timeoutNanos,
                recordKeys);
    }

    /** A new connection outside the pool, probed and with the scripts loaded, for the pipeline. */
    private NodeConnection openProbedConnection() {
        NodeConnection connection = new NodeConnection(sockets, config);
        try {
            connection.probeAndLoad(clock);
        } catch (RuntimeException e) {
            NodeConnectionPool.disconnectQuietly(connection);
            throw e;
        }
        return connection;
    }

    /** Jedis settings for one node: timeouts, credentials, database and TLS from the URI. */
    static JedisClientConfig clientConfig(RedisNodeAddress address, int timeoutMillis, SslOptions tls) {
        DefaultJedisClientConfig.Builder builder = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeoutMillis)
                .socketTimeoutMillis(timeoutMillis)
                .protocol(RedisProtocol.RESP2)
                .clientName("fencedlock")
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
                .database(address.database());
        address.user().ifPresent(builder::user);
        address.password().ifPresent(builder::password);
        if (address.tls()) {
            builder.sslOptions(
                    tls != null
                            ? tls
                            : SslOptions.builder()
                                    .sslVerifyMode(SslVerifyMode.FULL)
                                    .build());
        }
        return builder.build();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Pending send(Script script, byte[][] keys, byte[][] args) {
        return send(script, keys, args, false, System.nanoTime());
    }

    /**
     * {@link #send} preceded by {@code ASKING} on the same connection: the one call that follows a
     * Redis Cluster's {@code ASK} redirection to this node ({@link ClusterRedisNode}). The reply is
     * awaited until one node timeout after {@code sentAt}, the send of the call that was redirected,
     * so the redirection costs the caller no second node timeout.
     */
    Pending sendAsking(Script script, byte[][] keys, byte[][] args, long sentAt) {
        return send(script, keys, args, true, sentAt);
    }

    private Pending send(Script script, byte[][] keys, byte[][] args, boolean asking, long sentAt) {
        NodeConnection connection;
        try {
            connection = pool.borrowIdle();
        } catch (RuntimeException e) {
            return () -> NodeReply.failed(e);
        }
        if (connection != null) {
            try {
                write(connection, script, keys, args, asking);
            } catch (JedisConnectionException e) {
                pool.giveBack(connection);
                return retryOnFreshConnection(e, connection, script, keys, args, asking);
            }
            return () -> readOn(connection, script, keys, args, asking, sentAt);
        }
        OpenAndCall call = new OpenAndCall(script, keys, args, asking, sentAt);
        try {
            executor.execute(call);
        } catch (RejectedExecutionException e) {
            return () -> NodeReply.failed(new JedisConnectionException("the Redlock client is closed", e));
        }
        return call;
    }

    @Override
    public CompletableFuture<NodeReply> submit(Script script, byte[][] keys, byte[][] args) {
        return pipeline.call(script, keys, args, false);
    }

    /**
     * {@link #submit} preceded by {@code ASKING} on the pipeline's connection, for the call that
     * follows an {@code ASK} redirection to this node.
     */
    CompletableFuture<NodeReply> submitAsking(Script script, byte[][] keys, byte[][] args) {
        return pipeline.call(script, keys, args, true);
    }

    /** Opens one connection into the pool, so that the first calls find it idle. */
    void warmUp() {
        pool.warmUp();
    }

    /** A connection outside the pool, for a subscriber that keeps it for itself. */
    Connection openDedicatedConnection() {
        return new Connection(sockets, config);
    }

    /** Reads the reply of the {@code WAIT} behind a refused call, so that the connection stays in step. */
    private void skipWait(NodeConnection connection, Script script, long sentAt) {
        if (ack.covers(script)) {
            try {
                connection.readReply(nodeTimeout.millisLeft(sentAt));
            } catch (JedisDataException e) {
                // WAIT refused too (a replica): read all the same
            }
        }
    }

    /**
     * Writes the call, after {@code ASKING} if {@code asking}, followed by {@code WAIT} when the grant
     * needs acknowledging replicas.
     */
    private void write(NodeConnection connection, Script script, byte[][] keys, byte[][] args, boolean asking) {
        if (asking) {
            connection.sendAsking();
        }
        if (ack.covers(script)) {
            connection.sendScriptAndWait(script, keys, args, ack);
        } else {
            connection.sendScript(script, keys, args);
        }
    }

    /** Reads the reply; on NOSCRIPT loads the script and repeats the call on the same connection. */
    private NodeReply readOn(
            NodeConnection connection, Script script, byte[][] keys, byte[][] args, boolean asking, long sentAt) {
        JedisConnectionException cut;
        try {
            Object value;
            try {
                if (asking) {
                    connection.readAskingReply(nodeTimeout.millisLeft(sentAt));
                }
                value = connection.readReply(nodeTimeout.millisLeft(sentAt));
            } catch (JedisNoScriptException e) {
                skipWait(connection, script, sentAt);
                value = loadAndCall(connection, script, keys, args, asking);
            } catch (JedisDataException e) {
                skipWait(connection, script, sentAt);
                throw e;
            }
            if (ack.covers(script)) {
                RuntimeException unacknowledged =
                        ack.check(value, connection.readReply(nodeTimeout.millisLeft(sentAt)));
                if (unacknowledged != null) {
                    return NodeReply.failed(unacknowledged);
                }
            }
            return NodeReply.of(value, connection.instance());
        } catch (JedisConnectionException e) {
            cut = e;
        } catch (RuntimeException e) {
            return NodeReply.failed(e);
        } finally {
            pool.giveBack(connection);
        }
        return retryOnFreshConnection(cut, connection, script, keys, args, asking)
                .await();
    }

    /**
     * The node has no script: it restarted or its script cache was flushed. A connection cannot
     * outlive a restart, unless a proxy sits in between; so the same round trip that loads the
     * script and repeats the call also asks {@code INFO server} again, and the reply is credited to
     * whatever incarnation answers now.
     */
    private Object loadAndCall(NodeConnection connection, Script script, byte[][] keys, byte[][] args, boolean asking) {
        try {
            connection.sendProbe();
            connection.sendScriptLoad(script);
            write(connection, script, keys, args, asking); // ASKING again: the probe consumed the first
            connection.setSoTimeout(nodeTimeout.millis());
            connection.readProbe(clock);
            connection.readReply(nodeTimeout.millis());
            if (asking) {
                connection.readAskingReply(nodeTimeout.millis());
            }
            return connection.readReply(nodeTimeout.millis());
        } catch (RuntimeException e) {
            // a reply may be left unread: the connection must not be reused
            connection.setBroken();
            throw e;
        }
    }

    /**
     * A connection that sat in the pool and turns out cut (not slow: a timeout is never retried)
     * means the server went away while it was idle; a new connection either fails fast or reaches
     * the new incarnation at once. The call is idempotent (same value, same token), so sending it
     * again is safe even if the old server ran it before it died.
     */
    private Pending retryOnFreshConnection(
            JedisConnectionException failure,
            NodeConnection stale,
            Script script,
            byte[][] keys,
            byte[][] args,
            boolean asking) {
        if (!stale.pooledBefore() || failure.getCause() instanceof SocketTimeoutException) {
            return () -> NodeReply.failed(nodeTimeout.describe(failure));
        }
        pool.clear();
        long sentAt = System.nanoTime();
        NodeConnection fresh;
        try {
            fresh = pool.borrow();
            write(fresh, script, keys, args, asking);
        } catch (RuntimeException e) {
            return () -> NodeReply.failed(e instanceof JedisConnectionException c ? nodeTimeout.describe(c) : e);
        }
        return () -> readOn(fresh, script, keys, args, asking, sentAt);
    }

    @Override
    public void close() {
        pipeline.close();
        pool.close();
    }

    @Override
    public String toString() {
        return "RedisNode[" + name + "]";
    }

    /** The slow path: open a connection off the caller's thread, then make the call on it. */
    private final class OpenAndCall implements Runnable, Pending {
        private final Script script;
        private final byte[][] keys;
        private final byte[][] args;
        private final boolean asking;
        private final long sentAt;
        private final CompletableFuture<NodeReply> reply = new CompletableFuture<>();
        private volatile boolean abandoned;

        OpenAndCall(Script script, byte[][] keys, byte[][] args, boolean asking, long sentAt) {
            this.script = script;
            this.keys = keys;
            this.args = args;
            this.asking = asking;
            this.sentAt = sentAt;
        }

        @Override
        public void run() {
            try {
                NodeConnection connection = pool.borrow();
                if (abandoned) {
                    pool.giveBack(connection);
                    return;
                }
                try {
                    write(connection, script, keys, args, asking);
                } catch (RuntimeException e) {
                    pool.giveBack(connection);
                    throw e;
                }
                reply.complete(readOn(connection, script, keys, args, asking, sentAt));
            } catch (JedisConnectionException e) {
                reply.complete(NodeReply.failed(nodeTimeout.describe(e)));
            } catch (RuntimeException e) {
                reply.complete(NodeReply.failed(e));
            }
        }

        @Override
        public NodeReply await() {
            long left = sentAt + timeoutNanos - System.nanoTime();
            try {
                return reply.get(Math.max(0, left), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                abandoned = true;
                return NodeReply.failed(new JedisConnectionException(
                        "could not connect and get a reply within " + nodeTimeout.millis() + " ms"));
            } catch (ExecutionException e) {
                return NodeReply.failed(new JedisConnectionException(e.getMessage(), e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                abandoned = true;
                return NodeReply.failed(new JedisConnectionException("interrupted while waiting for the reply"));
            }
        }
    }
}
