package dev.fencedlock.zookeeper;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.FencedLock;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.NodeFailure;
import dev.fencedlock.spi.LeaseRequest;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.CuratorConnectionLossException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code zookeeper} backend's provider: one {@link CuratorFramework} (owned and closed here,
 * or borrowed from the application and left open), the {@link ConnectionWatch} that revokes
 * leases when the connection is interrupted, and what the locks and leases of one client share.
 *
 * <p>Lease checks and releases go through {@link LockNodes}, which never waits for a connection
 * and waits for an answer only a fraction of the session timeout.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ZooKeeperLockProvider implements LockProvider {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockProvider.class);

    /** How long a wait for a connection sleeps between looks at the handle's own state. */
    private static final long CONNECTED_POLL_MILLIS = 50;

    private final CuratorFramework curator;
    private final boolean ownsCurator;
    private final String basePath;
    private final LeaseRuntime runtime;
    private final ConnectionWatch watch;
    private final LockNodes nodes;
    private final LockTokens tokens;
    private final AbandonedCreates abandonedCreates;
    private final long operationTimeoutNanos;
    private final int configuredSessionTimeoutMs;
    private final AtomicInteger longestSessionTimeoutMs = new AtomicInteger();
    private final ConnectionStateListener sweepOnReconnect;
    private final TokenNodeSweeper tokenSweeper;
    private final ScheduledFuture<?> tokenSweeps;
    private final AtomicLong discardedGrants = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param curator a started client
     * @param ownsCurator whether {@link #close()} closes {@code curator}; an owned client's session
     *     timeout is the configured one, a borrowed client's is the application's
     */
    ZooKeeperLockProvider(
            CuratorFramework curator, boolean ownsCurator, ZooKeeperSettings settings, LeaseRuntime runtime) {
        this(curator, ownsCurator, settings, runtime, new ConnectionWatch());
    }

    /** As above, with the connection watch given (tests use a watch that injects interruptions). */
    ZooKeeperLockProvider(
            CuratorFramework curator,
            boolean ownsCurator,
            ZooKeeperSettings settings,
            LeaseRuntime runtime,
            ConnectionWatch watch) {
        this.curator = Objects.requireNonNull(curator, "curator");
        this.ownsCurator = ownsCurator;
        this.basePath = settings.basePath();
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.watch = Objects.requireNonNull(watch, "watch");
        this.nodes = new LockNodes(curator, runtime.clock(), runtime.scheduler());
        this.tokens = new LockTokens(curator);
        this.abandonedCreates = new AbandonedCreates(nodes);
        this.operationTimeoutNanos = settings.operationTimeout().toNanos();
        this.configuredSessionTimeoutMs =
                ownsCurator ? (int) settings.sessionTimeout().toMillis() : 0;
        this.sweepOnReconnect = (client, state) -> {
            if (state.isConnected()) {
                abandonedCreates.sweep();
            }
        };
        this.tokenSweeper = new TokenNodeSweeper(
                nodes,
                ZKPaths.makePath(basePath, ZooKeeperLocks.TOKENS_NODE),
                settings.tokenRetention(),
                System::currentTimeMillis);
        long periodNanos = TokenNodeSweeper.period(settings.tokenRetention()).toNanos();
        this.tokenSweeps = runtime.scheduler()
                .scheduleAtFixedRate(
                        tokenSweeper::sweep,
                        ThreadLocalRandom.current().nextLong(periodNanos),
                        periodNanos,
                        TimeUnit.NANOSECONDS);
        curator.getConnectionStateListenable().addListener(watch);
        curator.getConnectionStateListenable().addListener(sweepOnReconnect);
    }

    @Override
    public FencedLock lock(String name) {
        return new ZooKeeperFencedLock(
                name, ZooKeeperLocks.lockPath(basePath, name), ZooKeeperLocks.tokenPath(basePath, name), this);
    }

    /**
     * The Curator connection state as one node under the connect string, read from what Curator
     * last reported (no request to the ensemble): {@code UP} while connected, else {@code DOWN}
     * ({@code SUSPENDED}, {@code LOST}, {@code READ_ONLY}). Before Curator's first report, the
     * client's own view of its connection decides between {@code CONNECTED} and {@code LOST}.
     */
    @Override
    public BackendStatus status(String backend) {
        ConnectionState last = watch.lastState();
        BackendStatus.NodeState state;
        if (last == null) {
            state = curator.getZookeeperClient().isConnected()
                    ? BackendStatus.NodeState.CONNECTED
                    : BackendStatus.NodeState.LOST;
        } else {
            state = switch (last) {
                case CONNECTED, RECONNECTED -> BackendStatus.NodeState.CONNECTED;
                case SUSPENDED -> BackendStatus.NodeState.SUSPENDED;
                case LOST -> BackendStatus.NodeState.LOST;
                case READ_ONLY -> BackendStatus.NodeState.READ_ONLY;
            };
        }
        BackendStatus.Node node = new BackendStatus.Node(
                curator.getZookeeperClient().getCurrentConnectionString(),
                state,
                last == null ? "" : "Curator reported " + last);
        return new BackendStatus(
                backend,
                state == BackendStatus.NodeState.CONNECTED ? BackendStatus.State.UP : BackendStatus.State.DOWN,
                List.of(node));
    }

    CuratorFramework curator() {
        return curator;
    }

    LeaseRuntime runtime() {
        return runtime;
    }

    ConnectionWatch watch() {
        return watch;
    }

    LockNodes nodes() {
        return nodes;
    }

    LockTokens tokens() {
        return tokens;
    }

    /** Deletes the token nodes of unused names; every client runs it periodically. */
    TokenNodeSweeper tokenSweeper() {
        return tokenSweeper;
    }

    AbandonedCreates abandonedCreates() {
        return abandonedCreates;
    }

    /** The per-attempt bound of {@code request} ({@code fencedlock.zookeeper.operation-timeout}). */
    AcquisitionBound bound(LeaseRequest request) {
        return new AcquisitionBound(request, operationTimeoutNanos, runtime.clock());
    }

    /**
     * The longest a lease this ZooKeeper granted can still be valid once the ensemble stopped
     * answering: five twelfths of the session timeout ({@link SessionBound#outstandingNanos}).
     *
     * <p>Why: a lease is valid only up to the {@linkplain SessionBound session bound} past the send
     * of the last request that the server answered and that found its node owned (the create, or an
     * ownership check), and the bound is five twelfths of the session timeout less a drift
     * allowance ({@link ZooKeeperLease}, {@link SessionBound}). A server that stops answering at
     * {@code S} answers no request sent after {@code S}, so every lease, auto-renewing or fixed
     * (a fixed lease ends earlier still if its own lease time does), is invalid by {@code S} plus
     * that bound on its holder's clock, whatever Curator notices: a {@code SUSPENDED} connection
     * (after two thirds of the session timeout of silence, or at once when the connection drops)
     * only makes it sooner. The figure returned leaves the drift allowance in, to cover rate
     * differences between the holder's clock and the clock that waits it out.
     *
     * <p>The session timeout is the largest of the configured one (for a client that owns its
     * Curator), the one last negotiated with the ensemble and every one this client has used, so
     * that a server that raised the timeout to its minimum is counted. Every client of the same
     * configuration negotiates with the same servers and gets the same figure. Empty while a
     * borrowed Curator client has never connected (its session timeout is then unknown). Never
     * blocks.
     */
    @Override
    public Optional<Duration> longestOutstandingLease() {
        int timeoutMs = Math.max(
                Math.max(configuredSessionTimeoutMs, longestSessionTimeoutMs.get()),
                curator.getZookeeperClient().getLastNegotiatedSessionTimeoutMs());
        return timeoutMs <= 0
                ? Optional.empty()
                : Optional.of(Duration.ofNanos(SessionBound.outstandingNanos(timeoutMs)));
    }

    /** How many grants were discarded because they could not be trusted (see ZooKeeperFencedLock). */
    long discardedGrants() {
        return discardedGrants.get();
    }

    void requireStarted() {
        if (curator.getState() != CuratorFrameworkState.STARTED) {
            throw new IllegalStateException("the CuratorFramework of this lock client is " + curator.getState());
        }
    }

    /**
     * Returns Curator's current ZooKeeper handle once it is connected, waiting for a connection at
     * most what {@code bound} allows for one request: never longer than the operation timeout, and
     * never past the caller's wait plus one operation timeout. A wait of zero still gets one
     * operation timeout to connect (an attempt needs a connection, for example right after the
     * client started); the caller's wait is a ceiling, never a floor.
     *
     * @throws LockUnavailableException if no connection came in that time
     */
    ZooKeeper awaitConnected(LeaseRequest request, AcquisitionBound bound) throws InterruptedException {
        requireStarted();
        abandonedCreates.sweep();
        while (true) {
            try {
                ZooKeeper zooKeeper = nodes.connectedHandle();
                longestSessionTimeoutMs.accumulateAndGet(zooKeeper.getSessionTimeout(), Math::max);
                return zooKeeper;
            } catch (KeeperException e) {
                long left = bound.requestWaitNanos();
                if (left <= 0) {
                    throw unavailable(request.lockName(), request.startNanos(), new CuratorConnectionLossException());
                }
                long millis = Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), CONNECTED_POLL_MILLIS));
                if (curator.blockUntilConnected((int) millis, TimeUnit.MILLISECONDS)) {
                    // Curator's view can run ahead of the handle's for a moment; look again shortly.
                    Thread.sleep(1);
                }
            }
        }
    }

    boolean isConnected() {
        return curator.getZookeeperClient().isConnected();
    }

    /**
     * Whether the lock node still exists, as the node this grant created, owned by the session
     * that created it, which is still the client's session. A connection problem means no: an
     * interrupted connection revokes leases anyway. Never blocks (see {@link LockNodes#ownedSince}).
     *
     * @param waitNanos how long to wait for the server's answer
     * @return completes with when the read that found the node owned was handed over, on the
     *     runtime's clock, or empty if the node is not owned; exceptionally with a {@link
     *     LockUnavailableException} if the server gave another error or no answer in time, or too
     *     many checks were waiting already
     */
    CompletableFuture<OptionalLong> ownedSinceAsync(
            String lockName, String nodePath, long sessionId, long czxid, long waitNanos) {
        long start = runtime.clock().nanoTime();
        return nodes.ownedSince(nodePath, sessionId, czxid, waitNanos).handle((owned, failure) -> {
            if (failure == null) {
                return owned;
            }
            Throwable cause =
                    failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            if (LockNodes.isConnectionProblem(cause)) {
                return OptionalLong.empty();
            }
            if (cause instanceof TimeoutException) {
                cause = new TimeoutException("no answer from the server to the ownership check of lock node " + nodePath
                        + " within " + TimeUnit.NANOSECONDS.toMillis(waitNanos) + "ms");
            }
            throw unavailable(lockName, start, cause);
        });
    }

    /**
     * {@link #ownedSinceAsync}, waiting for the answer, for callers that may block (an acquiring
     * thread, a caller's own {@code extend}).
     *
     * @throws LockUnavailableException as the future would complete with it, or if the thread was
     *     interrupted (its flag is restored)
     */
    OptionalLong ownedSince(String lockName, String nodePath, long sessionId, long czxid, long waitNanos) {
        long start = runtime.clock().nanoTime();
        try {
            return ownedSinceAsync(lockName, nodePath, sessionId, czxid, waitNanos)
                    .get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw unavailable(lockName, start, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable(lockName, start, e);
        }
    }

    /**
     * Throws away a grant that must not be handed out, deleting its node. Does not wait for the
     * deletion: the next attempt's requests go out on the same session, after it.
     */
    void discardGrant(String lockName, String nodePath, String reason) {
        noteDiscarded(lockName, nodePath, reason);
        nodes.delete(nodePath, 0);
    }

    /**
     * Throws away a grant whose lease was already built, for example because a connection
     * interruption revoked it before it could be handed out: closing the lease deletes the node
     * (once, also if the revocation's own release is under way) and stops its checks.
     */
    void discardGrant(ZooKeeperLease lease, String reason) {
        noteDiscarded(lease.lockName(), lease.nodePath(), reason);
        lease.close();
    }

    private void noteDiscarded(String lockName, String nodePath, String reason) {
        discardedGrants.incrementAndGet();
        log.info("Discarded a grant of lock '{}' (node {}) and trying again: {}", lockName, nodePath, reason);
    }

    LockUnavailableException unavailable(String lockName, long startNanos, Throwable cause) {
        Duration elapsed = Duration.ofNanos(runtime.clock().nanoTime() - startNanos);
        String ensemble = "zookeeper " + curator.getZookeeperClient().getCurrentConnectionString();
        return new LockUnavailableException(lockName, elapsed, 1, 1, List.of(new NodeFailure(ensemble, cause)));
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        tokenSweeps.cancel(false);
        curator.getConnectionStateListenable().removeListener(watch);
        curator.getConnectionStateListenable().removeListener(sweepOnReconnect);
        if (ownsCurator) {
            curator.close();
        }
    }

    @Override
    public String toString() {
        return "ZooKeeperLockProvider{connect=" + curator.getZookeeperClient().getCurrentConnectionString()
                + ", basePath=" + basePath + ", trackedLeases=" + watch.tracked() + "}";
    }
}
