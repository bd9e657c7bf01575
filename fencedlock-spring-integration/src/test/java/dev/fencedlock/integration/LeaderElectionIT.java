package dev.fencedlock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.jdbc.JdbcFencing;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.junit.LockBackendExtension;
import dev.fencedlock.testkit.lease.BelievedValidLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's {@code LockRegistryLeaderInitiator} on {@link FencedLockRegistry}: one
 * leader at a time across three instances (each its own ZooKeeper client), each leadership's epoch
 * the token of its lease, and a deposed leader's write refused by the database's fence row.
 */
class LeaderElectionIT {
    @RegisterExtension
    static final LockBackendExtension BACKEND = LockBackendExtension.zookeeper();

    private static final Duration TTL = Duration.ofSeconds(1);
    private static TestDatabase database;

    @BeforeAll
    static void fenceTable() {
        database =
                TestDatabase.create(TestDatabase.Kind.H2, "sileader", 4).migrate("classpath:db/fencedlock/migration");
        database.execute("create table leader_work (id int primary key, done_by varchar(40), epoch bigint)");
        database.execute("insert into leader_work values (1, 'nobody', 0)");
    }

    @AfterAll
    static void drop() {
        database.close();
    }

    /**
     * A candidate that records its terms: the epoch (token) of each, and how many candidates held a
     * valid lease of the role's lock when it was granted. Holding is read from the locks, not
     * counted from the callbacks: Spring Integration releases a leader's lock before it calls
     * {@code onRevoked}, so the next leader's {@code onGranted} may run first.
     */
    private static final class Recorder extends DefaultCandidate {
        final FencedLockRegistry registry;
        final List<long[]> terms = new CopyOnWriteArrayList<>();
        final List<Recorder> all;

        Recorder(String id, String role, FencedLockRegistry registry, List<Recorder> all) {
            super(id, role);
            this.registry = registry;
            this.all = all;
        }

        final AtomicInteger revocations = new AtomicInteger();

        @Override
        public void onRevoked(Context context) {
            revocations.incrementAndGet();
        }

        @Override
        public void onGranted(Context context) {
            long epoch = registry.obtain(getRole()).lease().orElseThrow().token();
            long holders = all.stream().filter(Recorder::holdsValidLease).count();
            terms.add(new long[] {epoch, holders});
        }

        private boolean holdsValidLease() {
            return registry.obtain(getRole()).lease().filter(Lease::isValid).isPresent();
        }
    }

    @Test
    void oneLeaderAtATimeAndEachTermHasALargerEpoch() throws Exception {
        String role = "leader:" + System.nanoTime();
        List<LockClient> clients = new ArrayList<>();
        List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();
        List<Recorder> candidates = new CopyOnWriteArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                LockClient client = BACKEND.newClient();
                clients.add(client);
                Recorder candidate =
                        new Recorder("instance-" + i, role, new FencedLockRegistry(client, TTL), candidates);
                candidates.add(candidate);
                initiators.add(started(candidate));
            }
            List<Long> epochs = new ArrayList<>();
            for (int term = 0; term < 3; term++) {
                int leaderIndex =
                        Await.value("a leader", Duration.ofSeconds(20), () -> leaderOf(initiators), i -> i >= 0);
                Thread.sleep(600);
                assertThat(leaderOf(initiators))
                        .as("the leader keeps its lock past its TTL")
                        .isEqualTo(leaderIndex);
                long[] last = candidates
                        .get(leaderIndex)
                        .terms
                        .get(candidates.get(leaderIndex).terms.size() - 1);
                epochs.add(last[0]);
                LockRegistryLeaderInitiator deposed = initiators.get(leaderIndex);
                deposed.destroy();
                Await.until(
                        "leadership given up",
                        Duration.ofSeconds(20),
                        () -> !deposed.getContext().isLeader());
                // a new initiator, as a restarted instance has: restarting a stopped one at once can
                // race its old selector thread, which resubmits itself when it sees the initiator running
                initiators.set(leaderIndex, started(candidates.get(leaderIndex)));
            }
            assertThat(epochs).isSorted().doesNotHaveDuplicates();
            for (Recorder candidate : candidates) {
                for (long[] term : candidate.terms) {
                    assertThat(term[1])
                            .as("holders of a valid lease at the moment of a grant")
                            .isEqualTo(1);
                }
            }
        } finally {
            for (LockRegistryLeaderInitiator initiator : initiators) {
                initiator.destroy();
            }
            clients.forEach(LockClient::close);
        }
    }

    /**
     * A leader whose lease lapses between heartbeats, while another instance leads and steps down:
     * its next heartbeat does not carry on as if it had led throughout (a new lease under the old
     * hold), it is revoked, and it leads again only in a new term with a larger epoch.
     */
    @Test
    void aLeaderWhoseLeaseLapsedIsRevokedAtItsNextHeartbeatEvenIfTheLockIsFreeAgain() throws Exception {
        String role = "lapsed:" + System.nanoTime();
        List<Recorder> candidates = new CopyOnWriteArrayList<>();
        try (LockClient a = BACKEND.newClient();
                LockClient b = BACKEND.newClient()) {
            // a's lease (300 ms) lapses long before its next heartbeat (3 s)
            Recorder first = new Recorder("a", role, new FencedLockRegistry(a, Duration.ofMillis(300)), candidates);
            Recorder second = new Recorder("b", role, new FencedLockRegistry(b, TTL), candidates);
            candidates.add(first);
            candidates.add(second);
            LockRegistryLeaderInitiator lapsing = started(first, 3000);
            LockRegistryLeaderInitiator other = null;
            try {
                Await.until(
                        "a leads",
                        Duration.ofSeconds(20),
                        () -> lapsing.getContext().isLeader());
                other = started(second, 200);
                LockRegistryLeaderInitiator interim = other;
                Await.until(
                        "b leads once a's lease lapsed",
                        Duration.ofSeconds(20),
                        () -> interim.getContext().isLeader());
                interim.destroy();
                Await.until(
                        "b stepped down",
                        Duration.ofSeconds(20),
                        () -> !interim.getContext().isLeader());
                Await.until("a's second term", Duration.ofSeconds(20), () -> first.terms.size() >= 2);
                assertThat(first.revocations.get())
                        .as("a revoked at the heartbeat that found its lease lapsed")
                        .isPositive();
                assertThat(first.terms.get(1)[0])
                        .as("a's second epoch after b's")
                        .isGreaterThan(second.terms.get(0)[0]);
            } finally {
                lapsing.destroy();
                if (other != null) {
                    other.destroy();
                }
            }
        }
    }

    private static LockRegistryLeaderInitiator started(Recorder candidate) {
        return started(candidate, 200);
    }

    private static LockRegistryLeaderInitiator started(Recorder candidate, long heartBeatMillis) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(candidate.registry, candidate);
        initiator.setHeartBeatMillis(heartBeatMillis);
        initiator.setBusyWaitMillis(50);
        initiator.start();
        return initiator;
    }

    private static int leaderOf(List<LockRegistryLeaderInitiator> initiators) {
        int found = -1;
        for (int i = 0; i < initiators.size(); i++) {
            if (initiators.get(i).getContext().isLeader()) {
                assertThat(found).as("two leaders at once").isEqualTo(-1);
                found = i;
            }
        }
        return found;
    }

    @Test
    void aDeposedLeaderThatKeepsRunningIsRefusedByTheDatabase() throws Exception {
        String role = "deposed:" + System.nanoTime();
        try (LockClient a = BACKEND.newClient();
                LockClient b = BACKEND.newClient()) {
            FencedDistributedLock oldLeader = new FencedLockRegistry(a, Duration.ofMillis(500)).obtain(role);
            assertThat(oldLeader.tryLock(Duration.ZERO, Duration.ofMillis(500))).isTrue();
            Lease oldTerm = oldLeader.lease().orElseThrow();
            write(oldTerm, "old leader");

            Await.until(
                    "the old leader's term ran out while it was stopped",
                    Duration.ofSeconds(20),
                    () -> !oldTerm.isValid());
            FencedDistributedLock newLeader = new FencedLockRegistry(b, TTL).obtain(role);
            assertThat(newLeader.tryLock(Duration.ofSeconds(10), TTL)).isTrue();
            Lease newTerm = newLeader.lease().orElseThrow();
            write(newTerm, "new leader");

            assertThatThrownBy(() -> write(new BelievedValidLease(oldTerm), "old leader, late"))
                    .as("the old leader, still believing itself leader")
                    .isInstanceOf(FenceRefusedException.class);
            assertThatThrownBy(() -> write(oldTerm, "old leader, late")).as("the old leader's lease itself");
            assertThat(database.queryLong("select epoch from leader_work where id = 1"))
                    .isEqualTo(newTerm.token());
            newLeader.unlock();
        }
    }

    private static void write(Lease term, String who) throws Exception {
        JdbcFencing.inTransaction(database.dataSource(), term, connection -> {
            try (var update =
                    connection.prepareStatement("update leader_work set done_by = ?, epoch = ? where id = 1")) {
                update.setString(1, who);
                update.setLong(2, term.token());
                return update.executeUpdate();
            }
        });
    }
}
