package dev.fencedlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.local.LocalLockFaults;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Id;
import jakarta.persistence.Inheritance;
import jakarta.persistence.InheritanceType;
import jakarta.persistence.Transient;
import jakarta.persistence.Version;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.hibernate.Session;
import org.hibernate.annotations.SQLUpdate;
import org.hibernate.bytecode.enhance.spi.DefaultEnhancementContext;
import org.hibernate.bytecode.internal.BytecodeProviderInitiator;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.hibernate.tool.schema.Action;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the integrator refuses when the persistence unit starts, and what happens at runtime when
 * only half of the opt-in (the field or the listener) is there. On an in-memory H2 database.
 */
class FencingIntegratorTest {
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
    void aFenceWithoutTheListenerIsRefused() {
        assertStartFails(NoListener.class, "not @EntityListeners(FencingListener.class)");
    }

    /**
     * Hibernate's dirty tracking would not see the fence the listener stamps (a {@code
     * @DynamicUpdate} would keep the old one), so an enhanced fenced entity is refused. The class is
     * enhanced here with Hibernate's own enhancer, as the build plugin would, and put first on the
     * class path of a new JVM ({@link EnhancedEntityBoot}), so that every class loader Hibernate
     * asks finds the enhanced class, as with build-time enhancement.
     */
    @Test
    void aBytecodeEnhancedFencedEntityIsRefused(@TempDir Path classes) throws Exception {
        String name = EnhancedItem.class.getName();
        byte[] original;
        try (var in = EnhancedItem.class.getResourceAsStream("EnhancedItem.class")) {
            original = in.readAllBytes();
        }
        byte[] enhanced = BytecodeProviderInitiator.buildDefaultBytecodeProvider()
                .getEnhancer(new DefaultEnhancementContext())
                .enhance(name, original);
        assertThat(enhanced).as("enhanced by Hibernate").isNotNull();
        Path file = classes.resolve(name.replace('.', '/') + ".class");
        Files.createDirectories(file.getParent());
        Files.write(file, enhanced);

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = classes + File.pathSeparator + System.getProperty("java.class.path");
        Process boot = new ProcessBuilder(java, "-cp", classPath, EnhancedEntityBoot.class.getName())
                .redirectErrorStream(true)
                .start();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try (var in = boot.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        if (!boot.waitFor(2, TimeUnit.MINUTES)) {
            boot.destroyForcibly();
            throw new AssertionError("the JVM starting the enhanced entity did not end within 2 minutes");
        }
        String printed = output.get(10, TimeUnit.SECONDS);
        assertThat(printed)
                .as("the class on the new JVM's class path is enhanced")
                .contains("enhanced: true");
        assertThat(boot.exitValue()).as("exit status; output:%n%s", printed).isZero();
        assertThat(printed).contains("Fenced entity " + name + " is bytecode-enhanced");
    }

    /** A fence inside an embedded value is found: the entity is never written unfenced. */
    @Test
    void aFenceInsideAnEmbeddableIsRefused() {
        assertStartFails(
                EmbeddedFence.class,
                "@FencingToken field " + FenceHolder.class.getName() + ".fence is in " + "@Embeddable "
                        + FenceHolder.class.getName());
    }

    @Test
    void aFenceWithoutAVersionIsRefused() {
        assertStartFails(NoVersion.class, "has no @Version");
    }

    @Test
    void aFenceBesideATimestampVersionIsRefused() {
        assertStartFails(TimestampVersion.class, "need a numeric version");
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
            try (Lease stale = lock.acquire(wait)) {
                LocalLockFaults.loseLease(lock.name());
                long newer = Fencing.inTransaction(lock, wait, emf, em -> {
                    em.persist(new SingleTableChild());
                    return Fencing.currentLease().orElseThrow().token();
                });
                EntityManager em = emf.createEntityManager();
                try (FencingScope scope = Fencing.bind(stale)) {
                    assertThatThrownBy(() -> em.getTransaction().begin())
                            .isInstanceOfSatisfying(
                                    StaleFencingTokenException.class,
                                    refused -> assertThat(refused.newerToken()).hasValue(newer));
                    assertThat(em.getTransaction().isActive()).isFalse();
                }
                em.close();
                EntityManager check = emf.createEntityManager();
                assertThat(check.find(SingleTableChild.class, 1L).fence).isEqualTo(newer);
                check.close();
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
                        .managedClasses(FencedUnit.ENTITIES)
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
    void withoutTheFenceTableAFencedTransactionFailsAtBeginNamingTheMigration() throws Exception {
        try (EntityManagerFactory emf = start(Map.of(), false, SingleTableBase.class);
                Lease lease = client.lock(UUID.randomUUID().toString()).acquire(Duration.ofSeconds(5));
                FencingScope scope = Fencing.bind(lease)) {
            EntityManager em = emf.createEntityManager();
            assertThatThrownBy(() -> em.getTransaction().begin())
                    .satisfies(failure -> assertThat(rootCauseMessages(failure))
                            .contains("fence table fencedlock_fence is missing")
                            .contains("classpath:db/fencedlock/migration"));
            assertThat(em.getTransaction().isActive()).isFalse();
            em.close();
        }
    }

    @Test
    @SuppressWarnings("deprecation")
    void theRetiredLockFenceSettingIsAcceptedOnlyAsTrue() {
        start(Map.of(FencingSettings.LOCK_FENCE, "true"), true, SingleTableBase.class)
                .close();
        assertThatThrownBy(() -> start(Map.of(FencingSettings.LOCK_FENCE, "false"), true, SingleTableBase.class)
                        .close())
                .satisfies(failure -> assertThat(rootCauseMessages(failure))
                        .contains("fencedlock.jpa.lock-fence is retired and can no longer be 'false'")
                        .contains("Migrating from the lock fence"));
    }

    /** The protected-tables setting: require fails naming the table and the fix, protect protects, warn starts. */
    @Test
    void theProtectedTablesSettingRequiresWarnsOrProtects() {
        assertThatThrownBy(() -> start(Map.of(FencingSettings.PROTECTED_TABLES, "require"), true, SingleTableBase.class)
                        .close())
                .satisfies(failure -> assertThat(rootCauseMessages(failure))
                        .contains("fenced tables [singletablebase] are not protected")
                        .contains("call fencedlock_protect('singletablebase')")
                        .contains("FencedTables.protect(dataSource, \"singletablebase\")"));
        start(Map.of(), true, SingleTableBase.class).close();
        try (EntityManagerFactory emf =
                start(Map.of(FencingSettings.PROTECTED_TABLES, "protect"), true, SingleTableBase.class)) {
            EntityManager em = emf.createEntityManager();
            em.unwrap(Session.class).doWork(connection -> {
                try (Statement statement = connection.createStatement()) {
                    assertThatThrownBy(() -> statement.executeUpdate(
                                    "insert into SingleTableBase (id, version, extra, fence) values (7, 0, 'x', 0)"))
                            .hasMessageContaining("outside a fenced transaction");
                }
            });
            em.close();
        }
        assertThatThrownBy(() -> start(Map.of(FencingSettings.PROTECTED_TABLES, "maybe"), true, SingleTableBase.class)
                        .close())
                .satisfies(failure -> assertThat(rootCauseMessages(failure))
                        .contains("fencedlock.jpa.protected-tables must be one of require, warn, protect, off"));
    }

    @Test
    void aBadFenceTableNameIsRefused() {
        assertThatThrownBy(() -> start(
                                Map.of(FencingSettings.LOCK_FENCE_TABLE, "fence; drop"), true, SingleTableBase.class)
                        .close())
                .satisfies(failure -> assertThat(rootCauseMessages(failure))
                        .contains("fencedlock.jpa.lock-fence-table")
                        .contains("'fence; drop'"));
    }

    private static void assertStartFails(Class<?> entity, String message, Class<?>... others) {
        assertThatThrownBy(() -> start(entity, others).close())
                .satisfies(failure -> assertThat(rootCauseMessages(failure)).contains(message));
    }

    static String rootCauseMessages(Throwable failure) {
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        return messages.toString();
    }

    private static EntityManagerFactory start(Class<?> entity, Class<?>... others) {
        return start(Map.of(), true, entity, others);
    }

    /** On a new in-memory H2 database, with the fence table if {@code fenceTable}. */
    static EntityManagerFactory start(
            Map<String, Object> properties, boolean fenceTable, Class<?> entity, Class<?>... others) {
        String url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1"
                + (fenceTable
                        ? ";INIT=CREATE TABLE IF NOT EXISTS fencedlock_fence"
                                + "(lock_name VARCHAR(256) PRIMARY KEY, token BIGINT NOT NULL)"
                        : "");
        HibernatePersistenceConfiguration configuration = new HibernatePersistenceConfiguration(entity.getSimpleName())
                .jdbcUrl(url)
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

        @Version
        long version;

        @FencingToken
        Long fence;
    }

    @Entity
    @EntityListeners(FencingListener.class)
    static class TwoFences {
        @Id
        long id;

        @Version
        long version;

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

        @Version
        long version;

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

        @Version
        long version;

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

        @Version
        long version;

        @FencingToken
        long fence;
    }

    @Entity
    static class NoListener {
        @Id
        long id = 1;

        @Version
        long version;

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

        @Version
        long version;

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

        @Version
        long version;

        String extra;

        @FencingToken
        long fence;
    }

    @Entity(name = "UnionChild")
    static class UnionChild extends UnionBase {}

    @Entity
    @EntityListeners(FencingListener.class)
    static class NoVersion {
        @Id
        long id;

        @FencingToken
        long fence;
    }

    @Entity
    @EntityListeners(FencingListener.class)
    static class TimestampVersion {
        @Id
        long id;

        @Version
        java.time.Instant version;

        @FencingToken
        long fence;
    }

    @Entity
    @EntityListeners(FencingListener.class)
    static class EmbeddedFence {
        @Id
        long id;

        @Version
        long version;

        @jakarta.persistence.Embedded
        FenceHolder holder = new FenceHolder();
    }

    @jakarta.persistence.Embeddable
    static class FenceHolder {
        String note;

        @FencingToken
        long fence;
    }
}
