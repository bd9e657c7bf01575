package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.TokenOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the token nodes of lock names that have not been used for the token retention ({@code
 * fencedlock.zookeeper.token-retention}), so that per-entity lock names do not grow {@code
 * base-path/%tokens} without bound; Redlock's counters expire the same way.
 *
 * <p>One sweep: list {@code %tokens}; read each child; if the clock part of the last token it
 * issued ({@link LockTokens.Record#lastIssued()} {@code >> 16}, the ZooKeeper leader's clock when it
 * was issued, or later) is more than the retention behind this client's wall clock, delete the node
 * <i>with the version read</i>, so that a token written between the read and the delete keeps it.
 * Why a deletion never lets a token of the name go backwards, and the clock assumption it needs, is
 * in {@link LockTokens}. A contender that read the node before the deletion finds it gone when it
 * writes (its transaction fails and it reads again), or writes a node created after the deletion,
 * which its write shows ({@link LockTokens.Written#trusted()}).
 *
 * <p>Every client sweeps, every quarter of the retention (at most every hour), starting at a
 * random point of that period; sweeps by several clients are harmless (a node already deleted, or
 * written since it was read, is skipped). A sweep never blocks: it sends its requests on the raw
 * handle, {@value #BATCH} reads at a time, and returns; it is skipped while the client is not
 * connected. The listing of {@code %tokens} is one reply, so it must fit ZooKeeper's {@code
 * jute.maxbuffer} (1 MB by default, some 20,000 names of 40 characters): the names used within one
 * retention must stay below that.
 *
 * <p>Thread-safety: thread-safe.
 */
final class TokenNodeSweeper {
    private static final Logger log = LoggerFactory.getLogger(TokenNodeSweeper.class);

    /** How many token nodes one sweep reads at once: a sweep of many names never floods the server. */
    static final int BATCH = 256;

    /** The longest time between two sweeps of one client. */
    static final Duration MAX_PERIOD = Duration.ofHours(1);

    private final LockNodes nodes;
    private final String tokensPath;
    private final long retentionMillis;
    private final LongSupplier wallClockMillis;

    /**
     * @param tokensPath {@code base-path/%tokens}, relative to the namespace
     * @param wallClockMillis this client's wall clock, in milliseconds since the epoch
     */
    TokenNodeSweeper(LockNodes nodes, String tokensPath, Duration retention, LongSupplier wallClockMillis) {
        this.nodes = nodes;
        this.tokensPath = tokensPath;
        this.retentionMillis = retention.toMillis();
        this.wallClockMillis = wallClockMillis;
    }

    /** How often a client sweeps with {@code retention}: a quarter of it, at most {@link #MAX_PERIOD}. */
    static Duration period(Duration retention) {
        Duration quarter = retention.dividedBy(4);
        return quarter.compareTo(MAX_PERIOD) < 0 ? quarter : MAX_PERIOD;
    }

    /**
     * Runs one sweep; returns at once.
     *
     * @return completes with how many token nodes this sweep deleted (0 if not connected), or
     *     exceptionally with the {@link KeeperException} of the listing
     */
    CompletableFuture<Integer> sweep() {
        ZooKeeper zooKeeper;
        try {
            zooKeeper = nodes.connectedHandle();
        } catch (KeeperException e) {
            return CompletableFuture.completedFuture(0);
        }
        String fullPath = nodes.inNamespace(tokensPath);
        return ZkRequests.getChildren(zooKeeper, fullPath)
                .exceptionallyCompose(failure -> failure instanceof KeeperException.NoNodeException
                        ? CompletableFuture.completedFuture(List.of())
                        : CompletableFuture.failedFuture(failure))
                .thenCompose(children -> {
                    AtomicInteger deleted = new AtomicInteger();
                    CompletableFuture<Void> batches = CompletableFuture.completedFuture(null);
                    for (int from = 0; from < children.size(); from += BATCH) {
                        List<String> batch = children.subList(from, Math.min(children.size(), from + BATCH));
                        batches = batches.thenCompose(done -> sweepBatch(zooKeeper, fullPath, batch, deleted));
                    }
                    return batches.thenApply(done -> deleted.get());
                });
    }

    /** Sweeps {@code batch}; the next batch is sent once every request of this one was answered. */
    private CompletableFuture<Void> sweepBatch(
            ZooKeeper zooKeeper, String fullPath, List<String> batch, AtomicInteger deleted) {
        List<CompletableFuture<Void>> each = new ArrayList<>();
        for (String child : batch) {
            each.add(sweepOne(zooKeeper, ZKPaths.makePath(fullPath, child), deleted));
        }
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new));
    }

    private CompletableFuture<Void> sweepOne(ZooKeeper zooKeeper, String path, AtomicInteger deleted) {
        return ZkRequests.getData(zooKeeper, path)
                .thenCompose(data -> {
                    LockTokens.Record record = LockTokens.Record.of(path, data.data(), data.stat());
                    long issuedAt = TokenOrder.epochMillis(record.lastIssued());
                    if (wallClockMillis.getAsLong() - issuedAt <= retentionMillis) {
                        return CompletableFuture.completedFuture(null);
                    }
                    return ZkRequests.delete(zooKeeper, path, record.version()).thenRun(() -> {
                        deleted.incrementAndGet();
                        log.debug("Deleted token node {}, last used at {} (epoch ms)", path, issuedAt);
                    });
                })
                .exceptionally(failure -> {
                    // NONODE, BADVERSION: deleted or written by someone else meanwhile; anything
                    // else: the next sweep tries again.
                    log.debug("Token node {} kept in this sweep: {}", path, failure.toString());
                    return null;
                });
    }
}
