package dev.fencedlock.zookeeper;

import dev.fencedlock.zookeeper.LockNodes.NodeRead;
import dev.fencedlock.zookeeper.SharedSyncs.SentSync;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;

/**
 * Ownership reads sent together: the reads queued within {@value #WINDOW_MILLIS} ms of the first
 * go out as one shared {@code sync} ({@link SharedSyncs}) followed by read-only {@code multi}
 * requests of up to {@value #MAX_PER_REQUEST} {@code getData} operations each. The server answers
 * one request per batch instead of one per lease, which is what lets one client keep tens of
 * thousands of ZooKeeper leases renewed.
 *
 * <p>The answers mean what a {@code sync} then {@code exists} meant: a read-only {@code multi} is
 * not atomic, each operation is answered on its own ({@code NONODE} for a node that is gone), and
 * the session's requests are answered in order, so each answer follows the sync. A {@code getData}
 * needs the READ permission on the lock node, which the client that created it has under every
 * ACL fencedlock or Curator sets; an operation refused with {@code NOAUTH} fails that check ("cannot
 * tell"), never counts as owned. Read-only {@code multi} needs a ZooKeeper 3.6 or later server; a
 * server that answers {@code UNIMPLEMENTED} fails the batch, and the client sends every later read
 * as a single {@code exists} after the shared sync.
 *
 * <p>Nothing here waits: a batch is sent from the lease scheduler, and the answers complete the
 * reads' futures on ZooKeeper's event thread. The queue is bounded by the caller: {@link
 * LockNodes} queues a read only with one of its {@value LockNodes#MAX_CHECKS_IN_FLIGHT} permits,
 * which {@code onReply} gives back. Thread-safe.
 */
final class BatchedReads {
    /** How long the first queued read waits for others to join its batch. */
    static final long WINDOW_MILLIS = 2;

    /** The most reads in one {@code multi} request, far below ZooKeeper's 1 MB packet limit. */
    static final int MAX_PER_REQUEST = 512;

    private final ScheduledExecutorService scheduler;
    private final SharedSyncs syncs;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    private volatile boolean multiReadUnsupported;

    /**
     * @param scheduler where batches are sent from; its tasks must not block, and these do not
     * @param syncs the syncs the reads follow
     */
    BatchedReads(ScheduledExecutorService scheduler, SharedSyncs syncs) {
        this.scheduler = scheduler;
        this.syncs = syncs;
    }

    /**
     * Queues a read of {@code path} (in the namespace already) on {@code zooKeeper}.
     *
     * @param onReply runs once, when the read's answer (or its failure) arrives
     * @return completes with the node's stat (null if the node does not exist) and the send time of
     *     the sync the read followed; exceptionally with {@link KeeperException} for an error of the
     *     server or the connection, or {@link RejectedExecutionException} if the client is closing
     */
    CompletableFuture<NodeRead> read(ZooKeeper zooKeeper, String path, Runnable onReply) {
        Pending pending = new Pending(zooKeeper, path, onReply, new AtomicBoolean(), new CompletableFuture<>());
        queue.add(pending);
        if (flushScheduled.compareAndSet(false, true)) {
            try {
                scheduler.schedule(this::flush, WINDOW_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                flushScheduled.set(false);
                failQueued(e);
            }
        }
        return pending.answer();
    }

    private void flush() {
        flushScheduled.set(false);
        Map<ZooKeeper, List<Pending>> byHandle = new LinkedHashMap<>();
        for (Pending pending; (pending = queue.poll()) != null; ) {
            byHandle.computeIfAbsent(pending.handle(), handle -> new ArrayList<>())
                    .add(pending);
        }
        byHandle.forEach((handle, reads) -> {
            for (int from = 0; from < reads.size(); from += MAX_PER_REQUEST) {
                send(handle, reads.subList(from, Math.min(reads.size(), from + MAX_PER_REQUEST)));
            }
        });
    }

    private void send(ZooKeeper zooKeeper, List<Pending> reads) {
        try {
            if (multiReadUnsupported) {
                reads.forEach(
                        read -> syncs.existsAfterSync(zooKeeper, read.path()).whenComplete(read::settle));
                return;
            }
            SentSync sync = syncs.syncFor(zooKeeper, reads.get(0).path());
            List<Op> ops = new ArrayList<>(reads.size());
            for (Pending read : reads) {
                ops.add(Op.getData(read.path()));
            }
            zooKeeper.multi(ops, (rc, p, ctx, results) -> answer(reads, sync, rc, results), null);
        } catch (RuntimeException e) {
            // a handle closed under us, or an invalid path: these reads fail, the others go on
            reads.forEach(read -> read.fail(e));
        }
    }

    private void answer(List<Pending> reads, SentSync sync, int rc, List<OpResult> results) {
        if (results == null || results.size() != reads.size()) {
            KeeperException.Code code = KeeperException.Code.get(rc);
            if (code == KeeperException.Code.UNIMPLEMENTED) {
                multiReadUnsupported = true;
            }
            for (Pending read : reads) {
                read.fail(
                        code == KeeperException.Code.OK
                                ? new IllegalStateException("unexpected answer to a read-only multi of " + reads.size()
                                        + " reads: " + results)
                                : KeeperException.create(code, read.path()));
            }
            return;
        }
        sync.done().whenComplete((ignored, syncFailure) -> {
            for (int i = 0; i < reads.size(); i++) {
                Pending read = reads.get(i);
                if (syncFailure != null) {
                    read.fail(syncFailure);
                } else if (results.get(i) instanceof OpResult.GetDataResult data) {
                    read.complete(new NodeRead(data.getStat(), sync.sentNanos()));
                } else if (results.get(i) instanceof OpResult.ErrorResult error) {
                    KeeperException.Code code = KeeperException.Code.get(error.getErr());
                    if (code == KeeperException.Code.NONODE) {
                        read.complete(new NodeRead(null, sync.sentNanos()));
                    } else {
                        read.fail(KeeperException.create(code, read.path()));
                    }
                } else {
                    read.fail(new IllegalStateException("unexpected answer to a getData: " + results.get(i)));
                }
            }
        });
    }

    private void failQueued(RuntimeException cause) {
        for (Pending pending; (pending = queue.poll()) != null; ) {
            pending.fail(cause);
        }
    }

    /**
     * A queued read and its answer; {@code onReply} runs once, when the first answer or failure
     * arrives, before the answer completes (a later one changes nothing).
     */
    private record Pending(
            ZooKeeper handle,
            String path,
            Runnable onReply,
            AtomicBoolean replied,
            CompletableFuture<NodeRead> answer) {
        void complete(NodeRead read) {
            if (replied.compareAndSet(false, true)) {
                onReply.run();
                answer.complete(read);
            }
        }

        void fail(Throwable cause) {
            if (replied.compareAndSet(false, true)) {
                onReply.run();
                answer.completeExceptionally(cause);
            }
        }

        void settle(NodeRead read, Throwable failure) {
            if (failure != null) {
                fail(failure);
            } else {
                complete(read);
            }
        }
    }
}
