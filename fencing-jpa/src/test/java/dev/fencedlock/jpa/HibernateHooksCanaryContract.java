package dev.fencedlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencedlock.Lease;
import dev.fencedlock.testkit.db.TestDatabase;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Canary for the Hibernate facilities fencing rests on. Each test looks at the SQL the database
 * received (recorded at the JDBC driver) and fails loudly if a Hibernate upgrade stops calling a
 * hook: the transaction observer (the guard must be the transaction's first statement), the
 * entity listener (the fence must be stamped), the partition-key column (the fence must be in the
 * UPDATE's and DELETE's WHERE clause; on PostgreSQL the guard must travel with the transaction's
 * first statement, which Hibernate must prepare in a form the guard can travel with), the statement inspector (a write to a fenced table outside
 * a fenced transaction must never reach the database) and the before-completion check.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class HibernateHooksCanaryContract {
    private static final Duration LEASE = Duration.ofMinutes(2);

    private final RecordingDataSource recording = new RecordingDataSource();
    private FencedUnit unit;
    private EntityManagerFactory emf;
    private TestLocks locks;

    protected abstract TestDatabase.Kind kind();

    @BeforeAll
    void open() {
        unit = FencedUnit.open(kind());
        emf = unit.factory(recording.around(unit.db.dataSource()), Map.of());
        locks = new TestLocks();
    }

    @AfterAll
    void close() {
        locks.close();
        unit.close();
    }

    @Test
    void theGuardIsTheFirstStatementAndTheFenceIsInTheStatements() throws Exception {
        long id = 1;
        unit.db.execute("INSERT INTO fenced_item (id, sku, quantity) VALUES (?, 'canary', 10)", id);
        try (Lease lease = locks.lock("canary:" + UUID.randomUUID()).acquire(Duration.ofSeconds(10), LEASE)) {
            EntityManager em = emf.createEntityManager();
            try (FencingScope scope = Fencing.bind(lease)) {
                recording.clear();
                em.getTransaction().begin();
                em.find(Item.class, id).take(1);
                em.flush();
                em.remove(em.find(Item.class, id));
                em.getTransaction().commit();
            } finally {
                em.close();
            }
            List<RecordingDataSource.Sent> sent = recording.sent();
            assertThat(sent).as("statements of the transaction").isNotEmpty();
            assertThat(lower(sent.get(0).sql()))
                    .as("the transaction's first statement: the fence guard")
                    .contains("update fencedlock_fence set token = ");
            if (kind() == TestDatabase.Kind.POSTGRESQL) {
                assertThat(lower(sent.get(0).sql()))
                        .as("on PostgreSQL the guard and the find's select in one statement, one round trip")
                        .contains(";")
                        .containsPattern("; select .* from fenced_item");
            }
            assertThat(sent)
                    .as("all on the guarded connection")
                    .allMatch(s -> s.connection() == sent.get(0).connection());
            assertThat(sent.stream().map(s -> lower(s.sql())))
                    .as("the fence and the version are in the UPDATE's and DELETE's WHERE clause")
                    .anyMatch(sql -> sql.startsWith("update fenced_item")
                            && where(sql).contains("fence=?")
                            && where(sql).contains("version=?"))
                    .anyMatch(sql -> sql.startsWith("delete from fenced_item")
                            && where(sql).contains("fence=?")
                            && where(sql).contains("version=?"));
        }
    }

    @Test
    void theListenerStampsTheToken() throws Exception {
        try (Lease lease = locks.lock("canary:" + UUID.randomUUID()).acquire(Duration.ofSeconds(10), LEASE)) {
            Item item = new Item(2, "canary", 1);
            Fencing.inTransaction(locks.lock(lease.lockName() + ":other"), Duration.ofSeconds(10), emf, em -> {
                em.persist(item);
                return null;
            });
            assertThat(item.fence()).as("stamped by FencingListener").isPositive();
            assertThat(unit.db.queryLong("SELECT fence FROM fenced_item WHERE id = 2"))
                    .isEqualTo(item.fence());
        }
    }

    @Test
    void aWriteToAFencedTableWithoutALeaseNeverReachesTheDatabase() {
        EntityManager em = emf.createEntityManager();
        try {
            em.getTransaction().begin();
            recording.clear();
            Throwable failure = catchThrowable(() ->
                    em.createNativeQuery("UPDATE fenced_item SET quantity = 0").executeUpdate());
            assertThat(failure).as("refused by the statement inspector").isNotNull();
            assertThat(recording.sent()).as("sent to the database").isEmpty();
            em.getTransaction().rollback();
        } finally {
            em.close();
        }
    }

    @Test
    void theLeaseIsCheckedBeforeCommit() throws Exception {
        unit.db.execute("INSERT INTO fenced_item (id, sku, quantity) VALUES (3, 'canary', 10)");
        Lease lease = locks.lock("canary:" + UUID.randomUUID()).acquire(Duration.ofSeconds(10), LEASE);
        EntityManager em = emf.createEntityManager();
        try (FencingScope scope = Fencing.bind(lease)) {
            em.getTransaction().begin();
            em.find(Item.class, 3L).take(1);
            em.flush();
            locks.expire(lease);
            assertThat(StaleFencingTokenException.findIn(
                            catchThrowable(() -> em.getTransaction().commit())))
                    .as("the before-completion check")
                    .isPresent();
        } finally {
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
            em.close();
        }
        assertThat(unit.db.queryLong("SELECT quantity FROM fenced_item WHERE id = 3"))
                .isEqualTo(10);
    }

    private static String lower(String sql) {
        return sql.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ").trim();
    }

    private static String where(String sql) {
        return sql.substring(sql.indexOf(" where "));
    }
}
