package dev.fencedlock.redlock.internal;

import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.spi.MonotonicClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * The asynchronous path to one Redis master, for the calls that lease housekeeping makes
 * (renewals and the releases of lost leases): callers queue a call and get a future; one thread of
 * this node's own takes every call queued meanwhile, writes them all on one connection, flushes
 * once and then reads the replies in order. So a thousand leases due in the same moment cost one
 * round trip per node, and a node that does not answer holds up only its own thread.
 *
 * <ul>
 *   <li>Extensions ({@link Script#EXTEND}) of one batch go out together as {@link
 *       Script#EXTEND_MANY} calls of up to {@value #KEYS_PER_CALL} leases each, which also update the
 *       node's records of live leases ({@link RedlockKeys#leaseExpiries()}).
 *   <li>The backlog is bounded ({@value #BACKLOG} calls): a call that finds it full fails at once,
 *       like a node that did not answer.
 *   <li>One connection: when it breaks (a timeout or a cut), the calls of the batch fail, and a new
 *       connection is tried no sooner than one node timeout after the last failed attempt (calls
 *       meanwhile fail at once with that attempt's cause). A node that comes back sees one connection
 *       from this client, not one per waiting call.
 *   <li>Each reply carries the incarnation its connection was opened to ({@link NodeConnection});
 *       a {@code NOSCRIPT} reply (the script cache was flushed, or the node restarted behind a
 *       proxy) probes again, reloads the scripts and repeats the calls concerned once.
 * </ul>
 *
 * <p>Every future completes within about two node timeouts of its call (one waiting for the batch
 * before, one for its own), never exceptionally: a failure is a {@link NodeReply#failed} reply.
 * Thread-safe.
 */
final class NodePipeline implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodePipeline.class);
    static final int BACKLOG = 65_536;
    static final int BATCH = 8_192;
    static final int KEYS_PER_CALL = 512;

    private final String name;
    private final byte[][] recordKeys;
    private final Supplier<NodeConnection> connector;
    private final MonotonicClock clock;
    private final NodeTimeout timeout;
    private final ArrayBlockingQueue<Call> backlog = new ArrayBlockingQueue<>(BACKLOG);
    private final Thread worker;
    private volatile boolean closed;

    // confined to the worker thread
    private NodeConnection connection;
    private long nextConnectNanos = System.nanoTime();
    private RuntimeException connectFailure;

    /**
     * @param connector opens, probes and loads the scripts on a new connection, within the node
     *     timeout per step; throws if it cannot
     * @param recordKeys the node's records of live leases, passed after the lock keys of batched
     *     extensions; null to send every extension alone (a cluster master, where the locks of one
     *     batch live in different slots and one script may touch only one)
     */
    NodePipeline(
            String name,
            String threadName,
            Supplier<NodeConnection> connector,
            MonotonicClock clock,
            long timeoutNanos,
            byte[][] recordKeys) {
        this.name = name;
        this.recordKeys = recordKeys;
        this.connector = connector;
        this.clock = clock;
        this.timeout = NodeTimeout.ofNanos(timeoutNanos);
        this.worker = new Thread(this::work, threadName);
        this.worker.setDaemon(true);
        this.worker.start();
    }

    /**
     * Queues a script call; the future completes with the node's reply or the failure. With {@code
     * asking}, the call goes out right after {@code ASKING} (it follows a Redis Cluster's {@code ASK}
     * redirection), and never in a batched extension.
     */
    CompletableFuture<NodeReply> call(Script script, byte[][] keys, byte[][] args, boolean asking) {
        Call call = new Call(script, keys, args, asking, new CompletableFuture<>());
        if (closed) {
            call.fail(new JedisConnectionException("the Redlock client is closed"));
        } else if (!backlog.offer(call)) {
            call.fail(new JedisConnectionException(
                    "the backlog of " + BACKLOG + " calls to this node is full: it answers too slowly"));
        } else if (closed) {
            failQueued(); // close() may have drained the backlog before this call arrived
        }
        return call.reply;
    }

    private void work() {
        List<Call> batch = new ArrayList<>();
        while (!closed) {
            try {
                Call first = backlog.poll(1, TimeUnit.SECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                backlog.drainTo(batch, BATCH - 1);
                run(batch);
            } catch (InterruptedException e) {
                break;
            } catch (RuntimeException e) {
                log.warn("Pipeline to Redis node {} failed unexpectedly", name, e);
                failAll(batch, e);
            } finally {
                batch.clear();
            }
        }
        failQueued();
        dropConnection();
    }

    /** Writes every call of the batch, flushes once, reads every reply. */
    private void run(List<Call> batch) {
        NodeConnection current = connection();
        if (current == null) {
            failAll(batch, connectFailure);
            return;
        }
        List<Send> sends = plan(batch);
        List<Send> unanswered = exchange(current, sends);
        if (!unanswered.isEmpty() && connection != null) {
            // NOSCRIPT: the node forgot the scripts; learn its incarnation again, reload, repeat once
            try {
                current.probeAndLoad(clock);
            } catch (RuntimeException e) {
                dropConnection();
                unanswered.forEach(send -> send.fail(timeout.describe(e)));
                return;
            }
            exchange(current, unanswered)
                    .forEach(send -> send.fail(new JedisNoScriptException("NOSCRIPT after reloading the scripts")));
        }
    }

    /**
     * One pipelined round trip. Returns the sends that met {@code NOSCRIPT}; every other send is
     * completed (with its reply, or failed).
     */
    private List<Send> exchange(NodeConnection current, List<Send> sends) {
        List<Send> noScript = new ArrayList<>();
        long sentAt = System.nanoTime();
        int read = 0;
        try {
            for (Send send : sends) {
                if (send.asking()) {
                    current.sendAsking();
                }
                current.sendCommand(send.command());
            }
            current.flushCommands();
            for (; read < sends.size(); read++) {
                current.setSoTimeout(timeout.millisLeft(sentAt));
                Send send = sends.get(read);
                if (send.asking()) {
                    current.readAskingReply(timeout.millisLeft(sentAt));
                }
                try {
                    send.complete(current.getOne(), current.instance());
                } catch (JedisNoScriptException e) {
                    noScript.add(send);
                } catch (JedisDataException e) {
                    send.fail(e);
                }
            }
        } catch (RuntimeException e) {
            dropConnection();
            RuntimeException cause = timeout.describe(e);
            for (int i = read; i < sends.size(); i++) {
                sends.get(i).fail(cause);
            }
            noScript.forEach(send -> send.fail(cause));
            return List.of();
        }
        return noScript;
    }

    /** Groups the batch's extensions into multi-key calls; every other call goes out alone. */
    private List<Send> plan(List<Call> batch) {
        List<Send> sends = new ArrayList<>();
        List<Call> extensions = new ArrayList<>();
        for (Call call : batch) {
            if (recordKeys != null
                    && !call.asking()
                    && call.script() == Script.EXTEND
                    && call.keys().length == 1
                    && call.args().length == 2) {
                extensions.add(call);
                if (extensions.size() == KEYS_PER_CALL) {
                    sends.add(new ManyExtensions(extensions, recordKeys));
                    extensions = new ArrayList<>();
                }
            } else {
                sends.add(new Single(call));
            }
        }
        if (!extensions.isEmpty()) {
            sends.add(new ManyExtensions(extensions, recordKeys));
        }
        return sends;
    }

    /** The open connection, or a new one if the last failed attempt is a node timeout old; else null. */
    private NodeConnection connection() {
        if (connection != null && connection.isConnected() && !connection.isBroken()) {
            return connection;
        }
        dropConnection();
        long now = System.nanoTime();
        if (connectFailure != null && now - nextConnectNanos < 0) {
            return null;
        }
        try {
            connection = connector.get();
            connectFailure = null;
            return connection;
        } catch (RuntimeException e) {
            connectFailure = timeout.describe(e);
            nextConnectNanos = System.nanoTime() + timeout.nanos();
            return null;
        }
    }

    private void dropConnection() {
        NodeConnection current = connection;
        connection = null;
        if (current != null) {
            try {
                current.disconnect();
            } catch (RuntimeException e) {
                // gone either way
            }
        }
    }

    private static void failAll(List<Call> calls, RuntimeException cause) {
        for (Call call : calls) {
            call.fail(cause);
        }
    }

    private void failQueued() {
        List<Call> left = new ArrayList<>();
        backlog.drainTo(left);
        failAll(left, new JedisConnectionException("the Redlock client is closed"));
    }

    /** Stops the thread; queued calls fail. Idempotent. */
    @Override
    public void close() {
        closed = true;
        worker.interrupt();
        failQueued();
    }

    /** A queued call and its future. */
    private record Call(
            Script script, byte[][] keys, byte[][] args, boolean asking, CompletableFuture<NodeReply> reply) {
        void fail(RuntimeException cause) {
            reply.complete(NodeReply.failed(cause));
        }
    }

    /** One command on the wire, answering one or more calls. */
    private interface Send {
        CommandArguments command();

        /** Whether {@code ASKING} goes out before the command. */
        default boolean asking() {
            return false;
        }

        void complete(Object value, RedisInstance instance);

        void fail(RuntimeException cause);
    }

    private record Single(Call call) implements Send {
        @Override
        public CommandArguments command() {
            return NodeConnection.evalsha(call.script(), call.keys(), call.args());
        }

        @Override
        public boolean asking() {
            return call.asking();
        }

        @Override
        public void complete(Object value, RedisInstance instance) {
            call.reply().complete(NodeReply.of(value, instance));
        }

        @Override
        public void fail(RuntimeException cause) {
            call.fail(cause);
        }
    }

    /** Up to {@value #KEYS_PER_CALL} extensions as one {@code extend-many.lua} call. */
    private record ManyExtensions(List<Call> calls, byte[][] recordKeys) implements Send {
        @Override
        public CommandArguments command() {
            CommandArguments command = new CommandArguments(Protocol.Command.EVALSHA)
                    .add(Script.EXTEND_MANY.sha1Argument())
                    .add(NodeConnection.count(calls.size() + recordKeys.length));
            for (Call call : calls) {
                command.add(NodeConnection.argument(call.keys()[0]));
            }
            for (byte[] key : recordKeys) {
                command.add(NodeConnection.argument(key));
            }
            for (Call call : calls) {
                command.add(NodeConnection.argument(call.args()[0])).add(NodeConnection.argument(call.args()[1]));
            }
            return command;
        }

        @Override
        public void complete(Object value, RedisInstance instance) {
            if (!(value instanceof List<?> each) || each.size() != calls.size()) {
                fail(new IllegalStateException("unexpected reply to the extend-many script: " + value));
                return;
            }
            for (int i = 0; i < calls.size(); i++) {
                calls.get(i).reply().complete(NodeReply.of(each.get(i), instance));
            }
        }

        @Override
        public void fail(RuntimeException cause) {
            calls.forEach(call -> call.fail(cause));
        }
    }
}
