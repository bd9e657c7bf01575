package dev.fencedlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.FencedTables;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.local.LocalLockFaults;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.hibernate.Session;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * What a fenced JPA transaction leaves on its pooled connection: nothing that lets the
 * connection's next, unfenced transaction write a protected table. On MariaDB the guard's mark is
 * a session variable, so fencing-jpa must clear it (fencing-jdbc's {@code FencedTransaction#afterCompletion}) before the
 * connection goes back to the pool; on PostgreSQL and H2 the mark ends with the transaction. Each
 * pool here has exactly one connection, so the unfenced transaction after the fenced one runs on
 * the very connection the fenced one used.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PooledConnectionAfterFencedTransactionIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration LEASE = Duration.ofMinutes(2);
    private static final String IDLE_TIMEOUT = "SELECT @@session.idle_transaction_timeout";
    private static final String UNFENCED_UPDATE = "UPDATE fenced_item SET quantity = quantity + 100 WHERE id = ?";

    private final Map<TestDatabase.Kind, Fixture> fixtures = new EnumMap<>(TestDatabase.Kind.class);
    private final AtomicLong locks = new AtomicLong();
    private final TestLocks testLocks = new TestLocks();

    /** One schema per database with items made before {@code fenced_item} was protected. */
    private static final class Fixture {
        final FencedUnit unit;
        final HikariDataSource pool;
        final EntityManagerFactory emf;
        final HikariDataSource heldPool;
        final EntityManagerFactory held;

        Fixture(TestDatabase.Kind kind) throws SQLException {
            unit = FencedUnit.open(kind, "jm");
            for (long id = 1; id <= 10; id++) {
                unit.db.execute("INSERT INTO fenced_item (id, sku, quantity, version) VALUES (?, ?, 50, 0)", id, "jm");
            }
            FencedTables.protect(unit.db.dataSource(), "fenced_item");
            pool = unit.pool(null, true, 1);
            emf = unit.factory(pool, Map.of());
            heldPool = unit.pool(null, true, 1);
            held = unit.factory(heldPool, Map.of("hibernate.connection.handling_mode", "DELAYED_ACQUISITION_AND_HOLD"));
        }
    }

    private Fixture fixture(TestDatabase.Kind kind) throws SQLException {
        Fixture fixture = fixtures.get(kind);
        if (fixture == null) {
            fixture = new Fixture(kind);
            fixtures.put(kind, fixture);
        }
        return fixture;
    }

    @AfterAll
    void close() {
        try {
            testLocks.close();
        } finally {
            fixtures.values().forEach(f -> f.unit.close());
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void afterACommittedFencedTransactionTheConnectionWritesNoProtectedTableUnfenced(TestDatabase.Kind kind)
            throws Exception {
        Fixture f = fixture(kind);
        assertThat(fencedCommit(f, (em, lease) -> em.find(Item.class, 1L).take(1)))
                .isNull();
        assertUnfencedUpdateRefused(f, f.pool, 1L, 49);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void afterARolledBackFencedTransactionTheConnectionWritesNoProtectedTableUnfenced(TestDatabase.Kind kind)
            throws Exception {
        Fixture f = fixture(kind);
        try (Lease lease = newLock().acquire(WAIT, LEASE)) {
            // first a committed one, so the fence row holds the lease's token after the rollback
            inTransaction(f.emf, lease, em -> em.find(Item.class, 2L).take(1), true);
            assertUnfencedUpdateRefused(f, f.pool, 2L, 49);
            inTransaction(
                    f.emf,
                    lease,
                    em -> {
                        em.find(Item.class, 2L).take(1);
                        em.flush();
                    },
                    false);
        }
        assertUnfencedUpdateRefused(f, f.pool, 2L, 49);
    }

    /** The newer holder's transaction ran on the pool's one connection; the older one is refused at begin. */
    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void afterARefusedStaleTransactionTheConnectionWritesNoProtectedTableUnfenced(TestDatabase.Kind kind)
            throws Exception {
        Fixture f = fixture(kind);
        FencedLock lock = newLock();
        try (Lease older = lock.acquire(WAIT, LEASE)) {
            LocalLockFaults.loseLease(lock.name());
            Fencing.inTransaction(lock, WAIT, f.emf, em -> {
                em.find(Item.class, 3L).take(1);
                return null;
            });
            Throwable refused = catchThrowable(() -> inTransaction(f.emf, older, em -> {}, true));
            assertThat(StaleFencingTokenException.findIn(refused))
                    .as("older holder refused")
                    .isPresent();
        }
        assertUnfencedUpdateRefused(f, f.pool, 3L, 49);
    }

    /** A session that holds its connection: its next, unfenced transaction runs on the same connection. */
    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aSessionHoldingItsConnectionWritesNoProtectedTableUnfencedAfterItsFencedTransaction(TestDatabase.Kind kind)
            throws Exception {
        Fixture f = fixture(kind);
        EntityManager em = f.held.createEntityManager();
        try {
            try (Lease lease = newLock().acquire(WAIT, LEASE);
                    FencingScope scope = Fencing.bind(lease)) {
                em.getTransaction().begin();
                em.find(Item.class, 4L).take(1);
                em.getTransaction().commit();
            }
            em.getTransaction().begin();
            SQLException refused = em.unwrap(Session.class).doReturningWork(c -> unfencedUpdate(c, 4L));
            em.getTransaction().rollback();
            assertRefused(refused);
        } finally {
            em.close();
        }
        assertThat(quantity(f, 4L)).isEqualTo(49);
        assertUnfencedUpdateRefused(f, f.heldPool, 4L, 49);
    }

    /**
     * The idle bound a fenced transaction sets on MariaDB's session (the lease's remaining time plus
     * the grace) is back at the session's value after it.
     */
    @Test
    void theIdleTimeoutALeaseSetIsPutBackAfterTheTransaction() throws Exception {
        Fixture f = fixture(TestDatabase.Kind.MARIADB);
        long before = idleTimeout(f.pool);
        long[] during = new long[1];
        Throwable failure = fencedCommit(
                f, (em, lease) -> em.unwrap(Session.class).doWork(c -> during[0] = queryLong(c, IDLE_TIMEOUT)));
        assertThat(failure).isNull();
        assertThat(during[0]).as("idle timeout inside the fenced transaction").isNotEqualTo(before);
        assertThat(idleTimeout(f.pool)).as("idle timeout after it").isEqualTo(before);
        assertUnfencedUpdateRefused(f, f.pool, 5L, 50);
    }

    /** The server ended the fenced transaction's session: the commit's failure is what the caller gets. */
    @Test
    void aSessionTheServerEndedFailsTheCommitWithItsOwnFailure() throws Exception {
        Fixture f = fixture(TestDatabase.Kind.MARIADB);
        Throwable failure = fencedCommit(f, (em, lease) -> {
            long id = em.unwrap(Session.class).doReturningWork(c -> queryLong(c, "SELECT CONNECTION_ID()"));
            f.unit.db.execute("KILL CONNECTION " + id);
        });
        assertThat(failure).as("commit on a killed session").isNotNull();
        assertThat(failure).hasStackTraceContaining("Unable to commit");
        assertUnfencedUpdateRefused(f, f.pool, 6L, 50);
    }

    /**
     * The statement that clears the mark fails (injected, on a connection the server keeps open):
     * the commit and the rollback still report their own outcome, and the failure is logged. The
     * commit clears the mark in its own statement (MariaDB Connector/J), so only the rollback's
     * clearing, a statement after the transaction, can fail here.
     */
    @Test
    void aFailureToClearTheMarkIsLoggedAndHidesNoOutcome() throws Exception {
        Fixture f = fixture(TestDatabase.Kind.MARIADB);
        EntityManagerFactory failing = f.unit.factory(failing(f.unit.pool(null, true, 1), Fault.CLEARING), Map.of());
        Logger logger = (Logger) LoggerFactory.getLogger("dev.fencedlock.jpa.internal.TransactionGuard");
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        try (Lease lease = newLock().acquire(WAIT, LEASE)) {
            inTransaction(failing, lease, em -> em.find(Item.class, 7L).take(1), true);
            inTransaction(
                    failing,
                    lease,
                    em -> {
                        em.find(Item.class, 7L).take(1);
                        em.flush();
                    },
                    false);
        } finally {
            logger.detachAppender(logged);
        }
        assertThat(quantity(f, 7L)).as("committed, then rolled back").isEqualTo(49);
        assertThat(logged.list).as("warnings logged").hasSize(1).allSatisfy(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            assertThat(event.getFormattedMessage()).contains("Could not clear");
            assertThat(event.getThrowableProxy().getMessage()).contains("injected");
        });
    }

    /** A rollback that failed runs no completion callback: the mark is cleared as the connection is released. */
    @Test
    void afterAFailedRollbackTheConnectionWritesNoProtectedTableUnfenced() throws Exception {
        Fixture f = fixture(TestDatabase.Kind.MARIADB);
        HikariDataSource pool = f.unit.pool(null, true, 1);
        EntityManagerFactory failing = f.unit.factory(failing(pool, Fault.ROLLBACK), Map.of());
        try (Lease lease = newLock().acquire(WAIT, LEASE)) {
            inTransaction(failing, lease, em -> em.find(Item.class, 8L).take(1), true);
            Throwable failure = catchThrowable(() -> inTransaction(
                    failing,
                    lease,
                    em -> {
                        em.find(Item.class, 8L).take(1);
                        em.flush();
                    },
                    false));
            assertThat(failure).hasStackTraceContaining("injected failure of the rollback");
        }
        assertUnfencedUpdateRefused(f, pool, 8L, 49);
    }

    // ----- helpers -----

    private FencedLock newLock() {
        return testLocks.lock("jm-lock-" + locks.incrementAndGet());
    }

    private interface Work {
        void run(EntityManager em) throws Exception;
    }

    private interface LeaseWork {
        void run(EntityManager em, Lease lease) throws Exception;
    }

    /** Commits {@code work} in a fenced transaction of a new lock on {@code f}'s pool: its failure, or null. */
    private Throwable fencedCommit(Fixture f, LeaseWork work) throws Exception {
        try (Lease lease = newLock().acquire(WAIT, LEASE)) {
            return catchThrowable(() -> inTransaction(f.emf, lease, em -> work.run(em, lease), true));
        }
    }

    private static void inTransaction(EntityManagerFactory emf, Lease lease, Work work, boolean commit)
            throws Exception {
        EntityManager em = emf.createEntityManager();
        try (FencingScope scope = Fencing.bind(lease)) {
            em.getTransaction().begin();
            try {
                work.run(em);
            } catch (Exception | Error e) {
                if (em.getTransaction().isActive()) {
                    em.getTransaction().rollback();
                }
                throw e;
            }
            if (commit) {
                em.getTransaction().commit();
            } else {
                em.getTransaction().rollback();
            }
        } finally {
            em.close();
        }
    }

    /** An unfenced update on {@code pool}'s (only) connection: refused with 23F01, the row unchanged. */
    private static void assertUnfencedUpdateRefused(Fixture f, DataSource pool, long id, int quantity)
            throws SQLException {
        SQLException refused;
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try {
                refused = unfencedUpdate(c, id);
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
        assertRefused(refused);
        assertThat(quantity(f, id)).isEqualTo(quantity);
    }

    private static void assertRefused(SQLException refused) {
        assertThat((Throwable) refused)
                .as("unfenced update of a protected table on the fenced transaction's connection")
                .isNotNull();
        assertThat(refused.getSQLState()).isEqualTo(FencedTables.REFUSED_SQLSTATE);
    }

    /** The update's failure, or null if the database let it through. */
    private static SQLException unfencedUpdate(Connection c, long id) {
        try (PreparedStatement s = c.prepareStatement(UNFENCED_UPDATE)) {
            s.setLong(1, id);
            s.executeUpdate();
            return null;
        } catch (SQLException e) {
            return e;
        }
    }

    private static int quantity(Fixture f, long id) {
        return f.unit.db
                .queryLong("SELECT quantity FROM fenced_item WHERE id = ?", id)
                .intValue();
    }

    private static long idleTimeout(DataSource pool) throws SQLException {
        try (Connection c = pool.getConnection()) {
            return queryLong(c, IDLE_TIMEOUT);
        }
    }

    private static long queryLong(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private enum Fault {
        /** The first {@code createStatement} after each commit or rollback fails (the statement clearing the mark). */
        CLEARING,
        /** Each rollback fails, after the database rolled back. */
        ROLLBACK
    }

    /** {@code pool} whose connections fail as {@code fault} says; Hibernate prepares its own statements. */
    private static DataSource failing(DataSource pool, Fault fault) {
        AtomicBoolean armed = new AtomicBoolean();
        InvocationHandler connections = (proxy, method, args) -> {
            if (method.getName().equals("getConnection")) {
                Connection connection = (Connection) invoke(pool, method, args);
                return Proxy.newProxyInstance(
                        Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (p, m, a) -> {
                            if (m.getName().equals("createStatement") && armed.getAndSet(false)) {
                                throw new SQLException("injected failure of the statement after the transaction");
                            }
                            Object result = invoke(connection, m, a);
                            if (m.getName().equals("rollback") && fault == Fault.ROLLBACK) {
                                throw new SQLException("injected failure of the rollback");
                            }
                            if (m.getName().equals("commit") || m.getName().equals("rollback")) {
                                armed.set(fault == Fault.CLEARING);
                            }
                            return result;
                        });
            }
            return invoke(pool, method, args);
        };
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, connections);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
