package dev.fencedlock.redlock.internal;

import dev.fencedlock.redlock.RedlockKeys;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.Connection;

/**
 * Listens on one node for the release channels of the lock names that have waiters in this client
 * and passes each release to the {@link Handoff}. Every node publishes every release, so one node is
 * enough; if it fails or falls silent (no answer to a ping for {@value #SILENCE_LIMIT_SECONDS} s, as
 * a SIGSTOPped server would), the listener moves on to the next node. It starts with the first
 * waiter and runs on one daemon thread.
 *
 * <p>Subscriptions follow {@link Handoff#waitedFor()}: {@link #refresh()} schedules a reconciliation
 * on the scheduler, so that no acquiring thread ever writes to the subscriber's socket. The silence
 * check takes no lock, so a write stuck on a frozen server cannot keep it from cutting the
 * connection. Thread-safe.
 */
final class ReleaseSubscriber implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReleaseSubscriber.class);
    private static final long PING_PERIOD_SECONDS = 5;
    private static final long SILENCE_LIMIT_SECONDS = 15;

    private final RedlockKeys keys;
    /** A channel of the prefix that nothing publishes on: its confirmation says the connection is subscribed. */
    private final byte[] anchor;

    private final List<String> nodeNames;
    private final List<Supplier<Connection>> nodes;
    private final Handoff handoff;
    private final ScheduledExecutorService scheduler;
    private final AtomicBoolean reconcileScheduled = new AtomicBoolean();
    private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
    /** Serialises writes to the connection and guards the fields below. */
    private final ReentrantLock writes = new ReentrantLock();

    private final Set<String> subscribed = new HashSet<>();
    private Thread thread;
    private ScheduledFuture<?> pings;
    private volatile Listener listener; // set once the current connection is subscribed
    private volatile boolean closed;

    /**
     * @param keys names the release channels
     * @param nodes opens a dedicated connection to each node, in node order
     * @param scheduler runs reconciliations and pings; tasks are short
     */
    ReleaseSubscriber(
            RedlockKeys keys,
            List<String> nodeNames,
            List<Supplier<Connection>> nodes,
            Handoff handoff,
            ScheduledExecutorService scheduler) {
        this.keys = keys;
        this.anchor = (keys.prefix() + "handoff").getBytes(StandardCharsets.UTF_8);
        this.nodeNames = List.copyOf(nodeNames);
        this.nodes = List.copyOf(nodes);
        this.handoff = handoff;
        this.scheduler = scheduler;
    }

    /** Whether the server has confirmed the subscription to {@code name}'s channel, so no release is missed. */
    boolean listeningTo(String name) {
        return confirmed.contains(name);
    }

    /** The set of waited-for names changed: subscribe or unsubscribe soon. */
    void refresh() {
        if (reconcileScheduled.compareAndSet(false, true)) {
            try {
                scheduler.execute(this::reconcile);
            } catch (RejectedExecutionException e) {
                reconcileScheduled.set(false);
            }
        }
    }

    private void reconcile() {
        reconcileScheduled.set(false);
        Set<String> wanted = handoff.waitedFor();
        writes.lock();
        try {
            if (closed) {
                return;
            }
            if (thread == null && !wanted.isEmpty()) {
                start();
            }
            Listener current = listener;
            if (current == null) {
                return; // the listener subscribes to everything wanted once it is connected
            }
            for (String name : wanted) {
                if (subscribed.add(name)) {
                    current.subscribe(channel(name));
                }
            }
            for (String name : Set.copyOf(subscribed)) {
                if (!wanted.contains(name)) {
                    subscribed.remove(name);
                    current.unsubscribe(channel(name));
                }
            }
        } catch (RuntimeException e) {
            // the connection broke; the listener loop reconnects and subscribes afresh
            log.debug("Could not update release subscriptions: {}", e.toString());
        } finally {
            writes.unlock();
        }
    }

    private void start() {
        thread = new Thread(this::listen, "fencedlock-redlock-release-listener");
        thread.setDaemon(true);
        thread.start();
        pings = scheduler.scheduleAtFixedRate(this::ping, PING_PERIOD_SECONDS, PING_PERIOD_SECONDS, TimeUnit.SECONDS);
    }

    private void listen() {
        int node = 0;
        int failures = 0;
        while (!closed) {
            Connection connection = null;
            try {
                connection = nodes.get(node).get();
                new Listener(connection).proceed(connection, anchor);
                failures = 0;
            } catch (RuntimeException e) {
                failures++;
                if (!closed) {
                    log.debug("Release notifications from {} stopped: {}", nodeNames.get(node), e.toString());
                }
            } finally {
                listener = null;
                confirmed.clear();
                writes.lock();
                try {
                    subscribed.clear();
                } finally {
                    writes.unlock();
                }
                if (connection != null) {
                    disconnectQuietly(connection);
                }
            }
            node = (node + 1) % nodes.size();
            pause(Math.min(2_000L, 100L * failures));
        }
    }

    private void ping() {
        Listener current = listener;
        if (current == null) {
            return;
        }
        if (System.nanoTime() - current.lastHeardNanos > TimeUnit.SECONDS.toNanos(SILENCE_LIMIT_SECONDS)) {
            log.debug("Release notifications fell silent; moving to the next node");
            disconnectQuietly(current.connection);
            return;
        }
        if (writes.tryLock()) {
            try {
                current.ping();
            } catch (RuntimeException e) {
                disconnectQuietly(current.connection);
            } finally {
                writes.unlock();
            }
        }
    }

    private static void pause(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Optional<String> lockName(byte[] channel) {
        return keys.lockNameOfReleased(new String(channel, StandardCharsets.UTF_8));
    }

    private byte[] channel(String name) {
        return keys.released(name).getBytes(StandardCharsets.UTF_8);
    }

    private static void disconnectQuietly(Connection connection) {
        try {
            connection.disconnect();
        } catch (RuntimeException e) {
            // closing anyway
        }
    }

    /** Stops listening and closes the connection. Idempotent. */
    @Override
    public void close() {
        closed = true;
        Listener current = listener;
        if (current != null) {
            disconnectQuietly(current.connection);
        }
        writes.lock();
        try {
            if (pings != null) {
                pings.cancel(false);
            }
            if (thread != null) {
                thread.interrupt();
            }
        } finally {
            writes.unlock();
        }
    }

    private final class Listener extends BinaryJedisPubSub {
        private final Connection connection;
        private volatile long lastHeardNanos = System.nanoTime();

        Listener(Connection connection) {
            this.connection = connection;
        }

        @Override
        public void onSubscribe(byte[] channel, int subscribedChannels) {
            lastHeardNanos = System.nanoTime();
            lockName(channel).ifPresent(confirmed::add);
            if (Arrays.equals(channel, anchor)) {
                if (closed) {
                    disconnectQuietly(connection);
                    return;
                }
                listener = this;
                reconcile();
            }
        }

        @Override
        public void onUnsubscribe(byte[] channel, int subscribedChannels) {
            lastHeardNanos = System.nanoTime();
            lockName(channel).ifPresent(confirmed::remove);
        }

        @Override
        public void onMessage(byte[] channel, byte[] message) {
            lastHeardNanos = System.nanoTime();
            lockName(channel).ifPresent(handoff::releasedElsewhere);
        }

        @Override
        public void onPong(byte[] pattern) {
            lastHeardNanos = System.nanoTime();
        }
    }
}
