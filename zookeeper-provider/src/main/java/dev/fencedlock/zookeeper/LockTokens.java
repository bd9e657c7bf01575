package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.TokenOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issues the {@code zookeeper} backend's fencing tokens in the one token order of all backends
 * ({@link TokenOrder}): {@code max(t << 16, previous + 1)}, where {@code t} is the ZooKeeper
 * leader's wall clock when the token is recorded and {@code previous} the token issued before it
 * for the same lock name.
 *
 * <p>Each lock name has one persistent <i>token node</i>, {@code base-path/%tokens/<encoded
 * name>} ({@link ZooKeeperLocks#tokenPath}), outside the lock's container node, so that it
 * survives the container being reaped. Its data is the token issued before the latest one, in
 * decimal, followed by a space and the {@code czxid} of the token node the writer read (absent in
 * the node's first data, {@code 0}, and in nodes written by earlier versions); the latest token is
 * {@code next(data, mtime)}, the node's data and modification time (the leader's clock at the
 * write, in milliseconds). So the node always says which token was issued last without a second
 * write.
 *
 * <p>A token is issued when a contender <i>joins</i> the lock's line, in the same transaction as
 * the create of its lock node ({@link LockLine}), so a grant costs the server two writes, the
 * create and the delete, as Curator's own mutex does:
 *
 * <ol>
 *   <li>take the token node's last known state (data {@code d}, modification time {@code m},
 *       version {@code v}): the one this client wrote or read last for the lock name ({@link
 *       TokenHints}), else a read; the last issued token is {@code p = next(d, m)}, or 0 if there is
 *       no node;
 *   <li>in one transaction: create the ephemeral-sequential lock node, and set the token node's
 *       data to {@code p} if its version is still {@code v} ({@link #recordOp});
 *   <li>the contender's token is {@code next(p, m')}, {@code m'} the modification time the write
 *       returned ({@link #written}): above {@code p}, and at least the leader's clock at the
 *       transaction shifted left 16 bits.
 * </ol>
 *
 * <p>A version that changed (another contender joined between) fails the whole transaction, so no
 * lock node is created without its token; the contender reads the node again and retries. Tokens
 * therefore grow in the order of the transactions, which is the order of the sequential suffixes
 * ZooKeeper gives the lock nodes, which is the order in which the recipe grants the lock. A
 * contender that gives up while waiting deletes its node and leaves a gap in the tokens, nothing
 * else. So tokens of one lock name are strictly increasing across grants in one ensemble whatever
 * the clocks do, also when the container was reaped (which restarts the sequential suffix; it is
 * reaped only when empty, so no earlier contender is left in line) and when transaction ids
 * restart. An ensemble rebuilt without its data loses the token nodes; its first token is then
 * {@code t << 16}, above every earlier one under {@link TokenOrder}'s clock assumption. A token
 * node whose data is not a token (written by hand) is treated as absent, with a warning: order
 * then rests on the clock alone.
 *
 * <p><b>Token nodes of unused names are deleted</b> ({@link TokenNodeSweeper}) once the last token
 * they issued is older than the token retention {@code R} ({@code fencedlock.zookeeper.token-retention},
 * default 1 day), and only with the version the sweeper read, so a write between the read and the
 * delete keeps the node. Why deleting one never lets a token go backwards: the node is deleted
 * only if the clock part of its last token, {@code e = last >> 16}, is below {@code w - R}, where
 * {@code w} is the sweeping client's wall clock. The next token of the name is issued on a new
 * node, at leader clock {@code m'} later than the deletion, and is at least {@code m' << 16}. It
 * is above {@code last}, which is below {@code (e + 1) << 16}, as soon as {@code m' > e}, which
 * holds when {@code m' > w - R}: <b>clock assumption</b>, the ZooKeeper leader's clock at any
 * later write is less than {@code R} behind the wall clock of any client that sweeps (a day by
 * default; NTP-synchronised hosts are milliseconds apart). Leases play no part: a holder whose
 * name's node was deleted keeps its token, and the next grant's is larger still. When the
 * assumption breaks (a sweeping client's clock more than {@code R} ahead of the leader's), a node
 * may be deleted while its last token's clock part is still ahead of the leader, and the next
 * token may be smaller than the last: the fence refuses that holder's writes as stale (liveness,
 * never safety), as for any clock outside {@link TokenOrder}'s assumption.
 *
 * <p>A client's knowledge of a node ({@link TokenHints}, or a read just before its write) may
 * predate a deletion, and the version check alone does not tell a new node from the deleted one
 * (both count versions from 0). So every write names the {@code czxid} of the node its writer
 * read, and the result of the write shows the {@code czxid} of the node written: a write to
 * another node than the one read (a new node, created after a deletion) is known to its writer,
 * which discards its grant ({@link Written#trusted()}), and to every reader of the node, which
 * then counts every token issued on it up to that write as at most {@code ((mtime + 1) << 16) - 1}
 * (under {@link TokenOrder}'s assumption of fewer than 65,536 tokens per millisecond), so later
 * tokens are above them all.
 *
 * <p><b>Join time, not grant time.</b> The clock part of a token is the leader's clock when the
 * contender joined the line, not when it was granted. For one backend this changes nothing. Across
 * backends ({@link TokenOrder}), the first grant after a switch to this backend is at least the
 * join time of its contender shifted left 16 bits, so the clock assumption's gap counts from the
 * moment the contender joined: a contender that joined while another backend was still granting
 * the same name, and was granted later, may carry a token below that backend's last ones. The
 * fence then refuses its writes as stale (liveness, never safety), as for any clock outside the
 * assumption.
 *
 * <p>Thread-safety: thread-safe.
 */
final class LockTokens {
    private static final Logger log = LoggerFactory.getLogger(LockTokens.class);

    private final CuratorFramework curator;
    private final TokenHints hints = new TokenHints();

    LockTokens(CuratorFramework curator) {
        this.curator = curator;
    }

    /**
     * The token node's state as this client last wrote or read it ({@link TokenHints}), else as a
     * read finds it now.
     *
     * @return what the node says, or {@link Record#ABSENT}
     * @throws TimeoutException if the read had no answer within what {@code bound} allows
     */
    Record lastKnown(ZooKeeper zooKeeper, String tokenPath, AcquisitionBound bound)
            throws KeeperException, InterruptedException, TimeoutException {
        Record hint = hints.get(tokenPath);
        return hint != null ? hint : read(zooKeeper, tokenPath, bound);
    }

    /** Forgets what this client knew of a token node, which turned out to be stale. */
    void forget(String tokenPath) {
        hints.forget(tokenPath);
    }

    /**
     * Reads a token node (one request) and remembers what it found.
     *
     * @return what the node says, or {@link Record#ABSENT}
     * @throws TimeoutException if the read had no answer within what {@code bound} allows
     */
    Record read(ZooKeeper zooKeeper, String tokenPath, AcquisitionBound bound)
            throws KeeperException, InterruptedException, TimeoutException {
        ZkRequests.Data data;
        try {
            data = ZkRequests.await(
                    ZkRequests.getData(zooKeeper, inNamespace(tokenPath)),
                    bound.requestWaitNanos(),
                    "the read of token node " + tokenPath);
        } catch (KeeperException.NoNodeException e) {
            hints.forget(tokenPath);
            return Record.ABSENT;
        }
        Record record = Record.of(tokenPath, data.data(), data.stat());
        hints.remember(tokenPath, record);
        return record;
    }

    /**
     * The operation that records the next token in a transaction: sets the token node's data to
     * {@code record}'s last issued token and {@code czxid} if the node's version is still {@code
     * record}'s.
     *
     * @throws IllegalStateException if {@code record} is {@link Record#ABSENT} (a version of -1
     *     would make the write unconditional)
     */
    Op recordOp(String tokenPath, Record record) {
        if (!record.exists()) {
            throw new IllegalStateException("token node " + tokenPath + " must exist before a token is recorded on it");
        }
        byte[] data = (record.lastIssued() + " " + record.czxid()).getBytes(StandardCharsets.US_ASCII);
        return Op.setData(inNamespace(tokenPath), data, record.version());
    }

    /**
     * The token node after {@link #recordOp} of {@code before} succeeded with {@code written}, now
     * remembered: its last issued token, {@code next(before.lastIssued, mtime)}, is the token of the
     * transaction's contender, unless the node written is not the node {@code before} was read
     * from (see the class description): the token is then untrusted.
     */
    Written written(String tokenPath, Record before, Stat written) {
        long token = TokenOrder.next(before.lastIssued(), written.getMtime());
        boolean sameNode = written.getCzxid() == before.czxid();
        Record after = new Record(
                true,
                sameNode ? token : Record.boundOfOtherNode(token, written.getMtime()),
                written.getVersion(),
                written.getCzxid());
        hints.remember(tokenPath, after);
        return new Written(after, token, sameNode);
    }

    /**
     * Creates the token node with "no earlier token", and its missing parents as persistent nodes;
     * a node that appeared meanwhile is fine.
     *
     * @throws TimeoutException if a request had no answer within what {@code bound} allows
     */
    void createTokenNode(ZooKeeper zooKeeper, String tokenPath, AcquisitionBound bound)
            throws KeeperException, InterruptedException, TimeoutException {
        Op create =
                ZkRequests.createOp(curator, tokenPath, CreateMode.PERSISTENT, "0".getBytes(StandardCharsets.US_ASCII));
        while (true) {
            ZkRequests.MultiAnswer answer = ZkRequests.await(
                    ZkRequests.multi(zooKeeper, List.of(create)),
                    bound.requestWaitNanos(),
                    "the create of token node " + tokenPath);
            if (answer.ok() || answer.failedWith(0, KeeperException.Code.NODEEXISTS)) {
                return; // if it exists, another client's first grant created it; read it.
            }
            if (!answer.failedWith(0, KeeperException.Code.NONODE)) {
                throw KeeperException.create(answer.code(), tokenPath);
            }
            ZkRequests.createAncestors(curator, zooKeeper, tokenPath, CreateMode.PERSISTENT, bound);
        }
    }

    private String inNamespace(String path) {
        return ZKPaths.fixForNamespace(curator.getNamespace(), path);
    }

    /**
     * A successful token write: the node as remembered now, the token the write issued to its
     * contender, and whether that token can be trusted (the node written is the node read).
     */
    record Written(Record after, long token, boolean trusted) {}

    /**
     * What one read (or this client's last write) of a token node found: the last token issued
     * ({@code next(data, mtime)}, or a bound above it, see the class description), the node's
     * version for the conditional write, and its {@code czxid}; {@link #ABSENT} when there is no
     * node.
     */
    record Record(boolean exists, long lastIssued, int version, long czxid) {
        static final Record ABSENT = new Record(false, 0, -1, 0);

        static Record of(String tokenPath, byte[] data, Stat stat) {
            String text = data == null ? "" : new String(data, StandardCharsets.US_ASCII);
            int space = text.indexOf(' ');
            long previous = parse(tokenPath, space < 0 ? text : text.substring(0, space), text);
            long last = TokenOrder.next(previous, stat.getMtime());
            if (space >= 0 && parse(tokenPath, text.substring(space + 1), text) != stat.getCzxid()) {
                last = boundOfOtherNode(last, stat.getMtime());
            }
            return new Record(true, last, stat.getVersion(), stat.getCzxid());
        }

        /**
         * Above every token issued on a node up to a write at leader clock {@code mtime} by a
         * client that had read another node of the same path: {@code ((mtime + 1) << 16) - 1}.
         */
        static long boundOfOtherNode(long token, long mtime) {
            return Math.max(token, TokenOrder.floor(mtime + 1) - 1);
        }

        private static long parse(String tokenPath, String value, String text) {
            try {
                long parsed = Long.parseLong(value);
                if (parsed >= 0 && parsed < Long.MAX_VALUE) {
                    return parsed;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            log.warn(
                    "Token node {} holds '{}', which is no token; the next token rests on the clock alone",
                    tokenPath,
                    text);
            return 0;
        }
    }
}
