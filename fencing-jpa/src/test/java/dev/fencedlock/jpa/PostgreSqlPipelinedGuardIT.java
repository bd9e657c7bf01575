package dev.fencedlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FenceRefusedException.Reason;
import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.FenceRowBusyException;
import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.testkit.db.PostgresRoundTrips;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.local.LocalLockFaults;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.LockTimeoutException;
import jakarta.persistence.PersistenceException;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * On PostgreSQL the fence guard of a JPA transaction travels in one round trip with the
 * transaction's first statement, and that statement has no effect whenever the guard fails (the
 * counterpart of fencing-jdbc's {@code PipelinedGuardIT}). "No effect" is shown with a sequence,
 * which a rollback does not put back: the first statement is a {@code nextval}, in a native query
 * or as the id of a persisted {@link Ticket}; after a refusal the sequence has not moved.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgreSqlPipelinedGuardIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration LEASE = Duration.ofMinutes(2);

    private final AtomicLong ids = new AtomicLong();
    private FencedUnit unit;
    private TestDatabase db;
    private EntityManagerFactory emf;
    private TestLocks locks;

    @BeforeAll
    void open() {
        unit = FencedUnit.open(TestDatabase.Kind.POSTGRESQL, "fjpp");
        db = unit.db;
        db.execute("create sequence ticket_seq");
        db.execute("create table ticket (id bigint primary key, label varchar(64), version bigint not null,"
                + " fence bigint not null)");
        db.execute("create table counter (id bigint primary key, value bigint not null, version bigint not null)");
        emf = unit.factory(db.dataSource(), Map.of(), List.of(Ticket.class, Counter.class));
        locks = new TestLocks();
    }

    @AfterAll
    void close() {
        locks.close();
        unit.close();
    }

    @Test
    void aStaleTokenRunsNothingOfTheFirstStatementAndRefusesTheRestOfTheTransaction() throws Exception {
        String sequence = newSequence();
        FencedLock lock = newLock();
        try (Lease older = lock.acquire(WAIT, LEASE)) {
            long newer = registerNewerHolder(lock);
            long before = sequenceValue(sequence);

            inOpenTransaction(older, em -> {
                StaleFencingTokenException refused = FencedWriteContract.stale(
                        () -> em.createNativeQuery("select nextval('" + sequence + "')")
                                .getSingleResult(),
                        Reason.NEWER_TOKEN_REGISTERED);
                assertThat(refused.token()).isEqualTo(older.token());
                assertThat(refused.newerToken()).hasValue(newer);
                assertThat(refused.getCause()).isInstanceOf(FenceRefusedException.class);
                assertThat(em.getTransaction().getRollbackOnly())
                        .as("marked for rollback")
                        .isTrue();
                assertThat(catchThrowable(() -> em.createNativeQuery("select nextval('" + sequence + "')")
                                .getSingleResult()))
                        .as("a later statement of the refused transaction")
                        .isSameAs(refused);
            });

            assertThat(sequenceValue(sequence))
                    .as("the first statement never ran")
                    .isEqualTo(before);
            assertThat(fenceRow(lock)).isEqualTo(newer);
        }
    }

    @Test
    void aStaleTokenRunsNothingOfAPersistWhoseIdComesFromASequence() throws Exception {
        FencedLock lock = newLock();
        try (Lease older = lock.acquire(WAIT, LEASE)) {
            long newer = registerNewerHolder(lock);
            long before = sequenceValue("ticket_seq");
            long tickets = db.queryLong("select count(*) from ticket");

            inOpenTransaction(
                    older,
                    em -> FencedWriteContract.stale(
                            () -> em.persist(new Ticket("stale")), Reason.NEWER_TOKEN_REGISTERED));

            assertThat(sequenceValue("ticket_seq")).as("nextval never ran").isEqualTo(before);
            assertThat(db.queryLong("select count(*) from ticket")).isEqualTo(tickets);
            assertThat(fenceRow(lock)).isEqualTo(newer);
        }
    }

    /** Hibernate's own connection pool (a JDBC URL, no {@code DataSource}) gets the guard in the same round trip. */
    @Test
    void hibernatesOwnConnectionPoolCarriesTheGuardWithTheFirstStatementToo() throws Exception {
        String sequence = newSequence();
        FencedLock lock = newLock();
        try (EntityManagerFactory ownPool = new HibernatePersistenceConfiguration("own-pool-" + db.schema())
                        .managedClasses(FencedUnit.ENTITIES)
                        .jdbcUrl(db.jdbcUrl())
                        .jdbcCredentials(db.user(), db.password())
                        .createEntityManagerFactory();
                Lease older = lock.acquire(WAIT, LEASE)) {
            registerNewerHolder(lock);
            long before = sequenceValue(sequence);
            inOpenTransaction(
                    ownPool,
                    older,
                    em -> FencedWriteContract.stale(
                            () -> em.createNativeQuery("select nextval('" + sequence + "')")
                                    .getSingleResult(),
                            Reason.NEWER_TOKEN_REGISTERED));
            assertThat(sequenceValue(sequence))
                    .as("the first statement never ran")
                    .isEqualTo(before);
        }
    }

    @Test
    void aBusyFenceRowRunsNothingOfTheFirstStatement() throws Exception {
        String sequence = newSequence();
        FencedLock lock = newLock();
        Fencing.inTransaction(lock, WAIT, emf, em -> em.find(Item.class, newItem()));
        try (Connection holder = db.connection();
                Lease lease = lock.acquire(WAIT, Duration.ofSeconds(1))) {
            holder.setAutoCommit(false);
            FencedTransaction.of(FenceTable.standard(), holder, lock.name(), lease.token(), null)
                    .begin();
            long before = sequenceValue(sequence);
            try {
                inOpenTransaction(lease, em -> {
                    Throwable failure = catchThrowable(() -> em.createNativeQuery("select nextval('" + sequence + "')")
                            .getSingleResult());
                    assertThat(failure)
                            .isInstanceOf(LockTimeoutException.class)
                            .hasMessageContaining(lock.name())
                            .hasCauseInstanceOf(FenceRowBusyException.class);
                    assertThat(em.getTransaction().getRollbackOnly()).isTrue();
                });
            } finally {
                holder.rollback();
            }
            assertThat(sequenceValue(sequence))
                    .as("the first statement never ran")
                    .isEqualTo(before);
        }
    }

    @Test
    void aMissingFenceTableRunsNothingOfTheFirstStatementAndSaysHowToCreateIt() throws Exception {
        String sequence = newSequence();
        String emptySchema = db.schema() + "_nofence";
        db.execute("create schema if not exists " + emptySchema);
        try {
            PGSimpleDataSource elsewhere = new PGSimpleDataSource();
            elsewhere.setURL(db.jdbcUrl().replace("currentSchema=" + db.schema(), "currentSchema=" + emptySchema));
            elsewhere.setUser(db.user());
            elsewhere.setPassword(db.password());
            EntityManagerFactory noFence = unit.factory(elsewhere, Map.of());
            long before = sequenceValue(sequence);
            try (Lease lease = newLock().acquire(WAIT, LEASE)) {
                inOpenTransaction(noFence, lease, em -> {
                    Throwable failure = catchThrowable(
                            () -> em.createNativeQuery("select nextval('" + db.schema() + "." + sequence + "')")
                                    .getSingleResult());
                    assertThat(failure).isInstanceOf(PersistenceException.class);
                    assertThat(FencedWriteContract.rootMessages(failure))
                            .contains("fence table fencedlock_fence is missing")
                            .contains("classpath:db/fencedlock/migration");
                });
            }
            assertThat(sequenceValue(sequence))
                    .as("the first statement never ran")
                    .isEqualTo(before);
        } finally {
            db.execute("drop schema " + emptySchema + " cascade");
        }
    }

    @Test
    void aLocksFirstTransactionRunsItsFirstStatementExactlyOnce() throws Exception {
        FencedLock lock = newLock();
        long before = sequenceValue("ticket_seq");

        Ticket ticket = Fencing.inTransaction(lock, WAIT, emf, em -> {
            Ticket t = new Ticket("first");
            em.persist(t);
            return t;
        });

        assertThat(ticket.id()).isEqualTo(before + 1);
        assertThat(sequenceValue("ticket_seq")).isEqualTo(before + 1);
        assertThat(db.queryLong("select count(*) from ticket where id = ?", ticket.id()))
                .isEqualTo(1);
        assertThat(fenceRow(lock)).isPositive();
    }

    @Test
    void aTransactionThatRunsNoStatementIsStillRefusedAtCommitWhenStale() throws Exception {
        FencedLock lock = newLock();
        try (Lease older = lock.acquire(WAIT, LEASE)) {
            long newer = registerNewerHolder(lock);
            EntityManager em = emf.createEntityManager();
            try (FencingScope scope = Fencing.bind(older)) {
                em.getTransaction().begin();
                FencedWriteContract.stale(() -> em.getTransaction().commit(), Reason.NEWER_TOKEN_REGISTERED);
                assertThat(em.getTransaction().isActive()).isFalse();
            } finally {
                em.close();
            }
            assertThat(fenceRow(lock)).isEqualTo(newer);
        }
        try (Lease newest = lock.acquire(WAIT, LEASE)) {
            EntityManager em = emf.createEntityManager();
            try (FencingScope scope = Fencing.bind(newest)) {
                em.getTransaction().begin();
                em.getTransaction().commit();
            } finally {
                em.close();
            }
            assertThat(fenceRow(lock))
                    .as("an empty transaction registers its token")
                    .isEqualTo(newest.token());
        }
    }

    /**
     * The point of it: a fenced find-change-commit makes as many round trips as the same
     * transaction on an unfenced entity with a plain {@code @Version}, counted as pgjdbc's {@code
     * Sync} messages; with the guard as a statement of its own it made one more.
     */
    @Test
    void aFencedFindChangeCommitMakesNoMoreRoundTripsThanAnUnfencedOne() throws Exception {
        long item = newItem();
        long counter = ids.incrementAndGet();
        db.execute("insert into counter (id, value, version) values (?, 0, 0)", counter);
        FencedLock lock = newLock();
        try (Lease lease = lock.acquire(WAIT, LEASE)) {
            Runnable fenced = () -> inOpenTransaction(lease, em -> {
                em.find(Item.class, item).take(1);
                em.getTransaction().commit();
            });
            fenced.run();
            int fencedTrips = PostgresRoundTrips.of(fenced::run);
            int unfencedTrips = PostgresRoundTrips.of(() -> {
                EntityManager em = emf.createEntityManager();
                try {
                    em.getTransaction().begin();
                    em.find(Counter.class, counter).increment();
                    em.getTransaction().commit();
                } finally {
                    em.close();
                }
            });

            assertThat(unfencedTrips).as("read, write, commit").isEqualTo(3);
            assertThat(fencedTrips).as("round trips of the fenced transaction").isEqualTo(unfencedTrips);
        }
    }

    /** Runs {@code body} in a transaction begun under {@code lease}, rolled back afterwards if still open. */
    private void inOpenTransaction(Lease lease, Consumer<EntityManager> body) {
        inOpenTransaction(emf, lease, body);
    }

    private static void inOpenTransaction(EntityManagerFactory factory, Lease lease, Consumer<EntityManager> body) {
        EntityManager em = factory.createEntityManager();
        try (FencingScope scope = Fencing.bind(lease)) {
            em.getTransaction().begin();
            body.accept(em);
        } finally {
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
            em.close();
        }
    }

    /** Breaks {@code lock} and lets a newer holder register its token; returns that token. */
    private long registerNewerHolder(FencedLock lock) throws Exception {
        LocalLockFaults.loseLease(lock.name());
        return Fencing.inTransaction(lock, WAIT, emf, em -> {
            em.find(Item.class, newItem());
            return Fencing.currentLease().orElseThrow().token();
        });
    }

    private FencedLock newLock() {
        return locks.lock("pipelined:" + UUID.randomUUID());
    }

    private long newItem() {
        long id = ids.incrementAndGet();
        db.execute("insert into fenced_item (id, sku, quantity) values (?, 'pipelined', 10)", id);
        return id;
    }

    private String newSequence() {
        String sequence = "probe_" + ids.incrementAndGet();
        db.execute("create sequence " + sequence);
        return sequence;
    }

    /** How far the sequence has gone: a rollback does not put it back. */
    private long sequenceValue(String sequence) {
        return db.queryLong("select case when is_called then last_value else 0 end from " + sequence);
    }

    private long fenceRow(FencedLock lock) {
        return db.queryLong("select token from fencedlock_fence where lock_name = ?", lock.name());
    }
}
