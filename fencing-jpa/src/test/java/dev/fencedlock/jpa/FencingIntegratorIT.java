package dev.fencedlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.internal.local.LocalLockTable;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Id;
import jakarta.persistence.Inheritance;
import jakarta.persistence.InheritanceType;
import jakarta.persistence.Transient;
import jakarta.persistence.Version;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.hibernate.annotations.SQLUpdate;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.hibernate.tool.schema.Action;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the integrator refuses when the persistence unit starts, and what happens at runtime when
 * only half of the opt-in (the field or the listener) is there. On an in-memory H2 database.
 */
class FencingIntegratorIT {
    private static LockClient client;

    @BeforeAll
    static void createClient() {
        client = LockClient.create(LockConfig.builder().backend("local").build());
    }

    @AfterAll
    static void closeClient() {
        client.close();
    }

    @Test
    void aFenceThatIsNotAPrimitiveLongIsRefused() {
        assertStartFails(BoxedFence.class, "must be a non-static, non-final 'long'");
    }

    @Test
    void twoFencesAreRefused() {
        assertStartFails(TwoFences.class, "more than one @FencingToken field");
    }

    @Test
    void aFenceThatIsAlsoTheVersionIsRefused() {
        assertStartFails(FenceIsVersion.class, "is also its @Version");
    }

    @Test
    void aTransientFenceIsRefused() {
        assertStartFails(TransientFence.class, "is not persistent");
    }

    @Test
    void joinedInheritanceIsRefused() {
        assertStartFails(JoinedChild.class, "JOINED inheritance", JoinedBase.class);
    }

    @Test
    void customUpdateSqlIsRefused() {
        assertStartFails(CustomSql.class, "custom SQL");
    }

    @Test
    void aFenceWithoutTheListenerIsRefusedAtTheFirstWrite() throws Exception {
        try (EntityManagerFactory emf = start(NoListener.class);
                Lease lease = client.lock(UUID.randomUUID().toString()).acquire(Duration.ofSeconds(5));
                FencingScope scope = Fencing.bind(lease)) {
            EntityManager em = emf.createEntityManager();
            em.getTransaction().begin();
            em.persist(new NoListener());
            assertThatThrownBy(em::flush)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("carries fence 0")
                    .hasMessageContaining("token " + scope.lease().token())
                    .hasMessageContaining("FencingListener");
            em.getTransaction().rollback();
            em.close();
        }
    }

    @Test
    void theListenerWithoutAFenceIsRefusedAtTheFirstWrite() throws Exception {
        try (EntityManagerFactory emf = start(NoFence.class);
                Lease lease = client.lock(UUID.randomUUID().toString()).acquire(Duration.ofSeconds(5));
                FencingScope scope = Fencing.bind(lease)) {
            assertThat(scope.lease()).isSameAs(lease);
            EntityManager em = emf.createEntityManager();
            em.getTransaction().begin();
            assertThatThrownBy(() -> em.persist(new NoFence()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("has no @FencingToken field");
            em.getTransaction().rollback();
            em.close();
        }
    }

    @Test
    void tablePerClassInheritanceIsRefused() {
        assertStartFails(UnionChild.class, "TABLE_PER_CLASS inheritance", UnionBase.class);
    }

    @Test
    void singleTableHierarchiesAreFenced() throws Exception {
        try (EntityManagerFactory emf = start(SingleTableChild.class, SingleTableBase.class)) {
            FencedLock lock = client.lock(UUID.randomUUID().toString());
            Duration wait = Duration.ofSeconds(5);
            Fencing.inTransaction(lock, wait, emf, em -> {
                em.persist(new SingleTableChild());
                return null;
            });
            try (Lease stale = lock.acquire(wait);
                    FencingScope scope = Fencing.bind(stale)) {
                EntityManager em = emf.createEntityManager();
                em.getTransaction().begin();
                SingleTableChild read = em.find(SingleTableChild.class, 1L);
                LocalLockTable.SHARED.forceRelease(lock.name());
                long newer = Fencing.inTransaction(lock, wait, emf, other -> {
                    other.find(SingleTableChild.class, 1L).extra = "newer";
                    return Fencing.currentLease().orElseThrow().token();
                });
                read.extra = "stale";
                assertThatThrownBy(em::flush)
                        .isInstanceOfSatisfying(
                                StaleFencingTokenException.class,
                                refused -> assertThat(refused.currentToken()).hasValue(newer));
                assertThat(Fencing.currentLease()).containsSame(scope.lease());
                em.getTransaction().rollback();
                em.close();
            }
        }
    }

    /** Schema generation keeps the fence column out of the primary key, also where dialects add partition keys. */
    @Test
    void generatedSchemaKeepsThePrimaryKeyOnTheId() throws Exception {
        for (String dialect :
                List.of("org.hibernate.dialect.PostgreSQLDialect", "org.hibernate.dialect.MariaDBDialect")) {
            Path script = Files.createTempFile("fencing-ddl", ".sql");
            try {
                new HibernatePersistenceConfiguration("ddl")
                        .managedClass(Item.class)
                        .property("hibernate.dialect", dialect)
                        .property("hibernate.boot.allow_jdbc_metadata_access", false)
                        .property("jakarta.persistence.schema-generation.scripts.action", "create")
                        .property("jakarta.persistence.schema-generation.scripts.create-target", script.toString())
                        .createEntityManagerFactory()
                        .close();
                assertThat(Files.readString(script).toLowerCase(Locale.ROOT))
                        .as(dialect)
                        .contains("fence bigint not null")
                        .contains("primary key (id)");
            } finally {
                Files.deleteIfExists(script);
            }
        }
    }

    @Test
    void theLockFenceRefusesToStartWithoutItsTable() {
        assertThatThrownBy(() -> start(Map.of(FencingSettings.LOCK_FENCE, "true"), Item.class)
                        .close())
                .satisfies(failure -> assertThat(rootCauseMessages(failure))
                        .contains(
                                "The lock-fence table 'fencedlock_fence' (fencedlock.jpa.lock-fence=true) is missing"));
    }

    /** The table is checked after schema generation, so a load script of the persistence unit can create it. */
    @Test
    void theLockFenceStartsWithATableFromALoadScript() throws Exception {
        Path script = Files.createTempFile("fencedlock-fence", ".sql");
        try {
            Files.writeString(
                    script,
                    "CREATE TABLE fencedlock_fence (lock_name VARCHAR(256) NOT NULL,"
                            + " token BIGINT NOT NULL, PRIMARY KEY (lock_name));\n");
            try (EntityManagerFactory emf = start(
                    Map.of(
                            FencingSettings.LOCK_FENCE,
                            true,
                            "jakarta.persistence.sql-load-script-source",
                            script.toUri().toString()),
                    Item.class)) {
                long token = Fencing.inTransaction(
                        client.lock(UUID.randomUUID().toString()), Duration.ofSeconds(5), emf, em -> {
                            em.persist(new Item(1, "sku", 1));
                            return Fencing.currentLease().orElseThrow().token();
                        });
                EntityManager em = emf.createEntityManager();
                assertThat(em.createNativeQuery("SELECT token FROM fencedlock_fence")
                                .getSingleResult())
                        .isEqualTo(token);
                em.close();
            }
        } finally {
            Files.deleteIfExists(script);
        }
    }

    @Test
    void badLockFenceSettingsAreRefused() {
        assertThatThrownBy(() -> start(Map.of(FencingSettings.LOCK_FENCE, "yes"), Item.class)
                        .close())
                .satisfies(failure -> assertThat(rootCauseMessages(failure))
                        .contains("fencedlock.jpa.lock-fence must be true or false, got 'yes'"));
        assertThatThrownBy(() -> start(
                                Map.of(
                                        FencingSettings.LOCK_FENCE,
                                        true,
                                        FencingSettings.LOCK_FENCE_TABLE,
                                        "fence; drop"),
                                Item.class)
                        .close())
                .satisfies(failure -> assertThat(rootCauseMessages(failure))
                        .contains("fencedlock.jpa.lock-fence-table must be a table name")
                        .contains("got 'fence; drop'"));
    }

    private static void assertStartFails(Class<?> entity, String message, Class<?>... others) {
        assertThatThrownBy(() -> start(entity, others).close())
                .satisfies(failure -> assertThat(rootCauseMessages(failure)).contains(message));
    }

    private static String rootCauseMessages(Throwable failure) {
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        return messages.toString();
    }

    private static EntityManagerFactory start(Class<?> entity, Class<?>... others) {
        return start(Map.of(), entity, others);
    }

    private static EntityManagerFactory start(Map<String, Object> properties, Class<?> entity, Class<?>... others) {
        HibernatePersistenceConfiguration configuration = new HibernatePersistenceConfiguration(entity.getSimpleName())
                .jdbcUrl("jdbc:h2:mem:" + UUID.randomUUID())
                .jdbcCredentials("sa", "")
                .schemaToolingAction(Action.CREATE_DROP)
                .managedClass(entity);
        for (Class<?> other : others) {
            configuration.managedClass(other);
        }
        properties.forEach(configuration::property);
        return configuration.createEntityManagerFactory();
    }

    @Entity
    @EntityListeners(FencingListener.class)
    static class BoxedFence {
        @Id
        long id;

        @FencingToken
        Long fence;
    }

    @Entity
    @EntityListeners(FencingListener.class)
    static class TwoFences {
        @Id
        long id;

        @FencingToken
        long fence;

        @FencingToken
        long otherFence;
    }

    @Entity
    @EntityListeners(FencingListener.class)
    static class FenceIsVersion {
        @Id
        long id;

        @Version
        @FencingToken
        long fence;
    }

    @Entity
    @EntityListeners(FencingListener.class)
    static class TransientFence {
        @Id
        long id;

        @Transient
        @FencingToken
        long fence;
    }

    @Entity
    @Inheritance(strategy = InheritanceType.JOINED)
    @EntityListeners(FencingListener.class)
    static class JoinedBase {
        @Id
        long id;

        @FencingToken
        long fence;
    }

    @Entity
    static class JoinedChild extends JoinedBase {
        String extra;
    }

    @Entity
    @EntityListeners(FencingListener.class)
    @SQLUpdate(sql = "update CustomSql set fence = ? where id = ?")
    static class CustomSql {
        @Id
        long id;

        @FencingToken
        long fence;
    }

    @Entity
    static class NoListener {
        @Id
        long id = 1;

        @FencingToken
        long fence;
    }

    @Entity
    @EntityListeners(FencingListener.class)
    static class NoFence {
        @Id
        long id = 1;
    }

    @Entity(name = "SingleTableBase")
    @Inheritance(strategy = InheritanceType.SINGLE_TABLE)
    @EntityListeners(FencingListener.class)
    static class SingleTableBase {
        @Id
        long id = 1;

        String extra;

        @FencingToken
        long fence;
    }

    @Entity(name = "SingleTableChild")
    static class SingleTableChild extends SingleTableBase {}

    @Entity(name = "UnionBase")
    @Inheritance(strategy = InheritanceType.TABLE_PER_CLASS)
    @EntityListeners(FencingListener.class)
    abstract static class UnionBase {
        @Id
        long id = 1;

        String extra;

        @FencingToken
        long fence;
    }

    @Entity(name = "UnionChild")
    static class UnionChild extends UnionBase {}
}
