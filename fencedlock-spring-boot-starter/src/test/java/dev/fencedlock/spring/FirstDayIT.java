package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockTimeoutException;
import dev.fencedlock.spring.Locked.WhenTaken;
import dev.fencedlock.testkit.db.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * What a team adopting the starter meets on its first day: a missing table fails the start, naming
 * the table and the setting that creates it, reported by Spring Boot's failure analysis; unknown keys
 * are listed with the starter's own; the jdbc backend runs on the application's DataSource;
 * "run only if free" is one attribute; the meters exist before the first event.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ExtendWith(OutputCaptureExtension.class)
class FirstDayIT {
    private final ApplicationContextRunner jdbcRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class,
                    TransactionAutoConfiguration.class,
                    FencedLockAutoConfiguration.class));

    /** The analysis of {@code failure} by fencedlock's failure analyzer, found as Spring Boot finds it. */
    private static FailureAnalysis analysis(Throwable failure) {
        // Spring Boot's own analyzers that need the context's beans are left out
        List<FailureAnalyzer> fencedlock =
                SpringFactoriesLoader.forDefaultResourceLocation()
                        .load(FailureAnalyzer.class, null, (type, name, notMade) -> {})
                        .stream()
                        .filter(analyzer -> analyzer.getClass().getName().startsWith("dev.fencedlock."))
                        .toList();
        assertThat(fencedlock)
                .as("fencedlock's failure analyzer in spring.factories")
                .hasSize(1);
        return fencedlock.get(0).analyze(failure);
    }

    private static String h2Url() {
        return "spring.datasource.url=jdbc:h2:mem:first-day-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    @Test
    void aMissingFenceTableFailsTheStartNamingTheTableAndTheFix() {
        try (TestDatabase database = TestDatabase.create(TestDatabase.Kind.POSTGRESQL)) {
            jdbcRunner
                    .withBean(DataSource.class, () -> new DelegatingDataSource(database.dataSource()))
                    .withPropertyValues("fencedlock.backend=local")
                    .run(context -> {
                        assertThat(context).hasFailed();
                        FailureAnalysis analysis = analysis(context.getStartupFailure());
                        assertThat(analysis)
                                .as("the failure analyzer reports it")
                                .isNotNull();
                        assertThat(analysis.getDescription())
                                .contains("fencedlock_fence")
                                .contains("fencedlock.initialize-schema=embedded");
                        assertThat(analysis.getAction())
                                .contains("fencedlock.initialize-schema=always")
                                .contains("classpath:db/fencedlock/migration")
                                .doesNotContain("unless fencedlock.initialize-schema=never");
                    });
        }
    }

    @Test
    void theJdbcBackendsMissingLockTableFailsTheStartToo() {
        try (TestDatabase database = TestDatabase.create(TestDatabase.Kind.POSTGRESQL)) {
            database.migrate("classpath:db/fencedlock/migration");
            jdbcRunner
                    .withBean(DataSource.class, () -> new DelegatingDataSource(database.dataSource()))
                    .withPropertyValues("fencedlock.backend=jdbc")
                    .run(context -> {
                        FailureAnalysis analysis = analysis(context.getStartupFailure());
                        assertThat(analysis.getDescription()).contains("fencedlock_lock");
                        assertThat(analysis.getAction()).contains("classpath:db/fencedlock/lock/migration");
                    });
        }
    }

    /** A real application start: Spring Boot prints the analysis, not a stack trace. */
    @Test
    void aBadSettingIsReportedAsAFailedStartWithAnAction(CapturedOutput output) {
        SpringApplicationBuilder application = new SpringApplicationBuilder(Minimal.class)
                .web(WebApplicationType.NONE)
                .properties("fencedlock.backend=local", "fencedlock.jpa.protected-tables=warn");
        assertThatThrownBy(application::run)
                .rootCause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.jpa.protected-tables");
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("Unknown configuration key 'fencedlock.jpa.protected-tables' (application properties)")
                .as("the known keys include the starter's own")
                .contains("fencedlock.protected-tables")
                .contains("fencedlock.initialize-schema")
                .contains("Action:");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(FencedLockAutoConfiguration.class)
    static class Minimal {}

    /** fencing-jpa's start-up warning about unprotected tables names the key the starter accepts. */
    @Test
    void theUnprotectedTablesWarningNamesTheStartersKey() throws Exception {
        Method message = Class.forName("dev.fencedlock.jpa.internal.ProtectedTablesCheck")
                .getDeclaredMethod("message", List.class);
        message.setAccessible(true);
        assertThat((String) message.invoke(null, List.of("inventory")))
                .contains("fencedlock.protected-tables")
                .doesNotContainPattern("or set fencedlock\\.jpa\\.protected-tables to");
    }

    @Test
    void theJdbcBackendUsesTheApplicationsDataSourceWithoutAUrl() {
        jdbcRunner
                .withPropertyValues(h2Url(), "fencedlock.backend=jdbc")
                .withBean(Jobs.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockClient client = context.getBean(LockClient.class);
                    try (Lease lease = client.lock("first-day:jdbc").acquire(Duration.ofSeconds(5))) {
                        assertThat(lease.backend()).isEqualTo("jdbc");
                        assertThat(context.getBean(JdbcTemplate.class)
                                        .queryForObject(
                                                "select count(*) from fencedlock_lock where lock_name = ?",
                                                Integer.class,
                                                "first-day:jdbc"))
                                .as("the lock's row is in the application's database")
                                .isEqualTo(1);
                    }
                    // a locked call inside a locked call without a transaction: the backend's own
                    // connections are not refused as unfenced work
                    assertThat(context.getBean(Jobs.class).nested(client)).isEqualTo("first-day:inner");
                });
    }

    /** With the application's pool the jdbc backend opens no connection per call; printed, not asserted. */
    @Test
    void fiftyLockedCallsOnTheApplicationsPoolAndOnAUrl() {
        try (TestDatabase database = TestDatabase.create(TestDatabase.Kind.POSTGRESQL)) {
            ApplicationContextRunner onPostgres = jdbcRunner
                    .withBean(DataSource.class, () -> new DelegatingDataSource(database.dataSource()))
                    .withPropertyValues("fencedlock.backend=jdbc", "fencedlock.initialize-schema=always")
                    .withBean(Jobs.class);
            onPostgres.run(context -> System.out.println("50 @Locked calls, jdbc backend on the application's pool: "
                    + fiftyCalls(context.getBean(Jobs.class)) + " ms"));
            onPostgres
                    .withPropertyValues(
                            "fencedlock.jdbc.url=" + database.jdbcUrl(),
                            "fencedlock.jdbc.user=" + database.user(),
                            "fencedlock.jdbc.password=" + database.password())
                    .run(context -> System.out.println("50 @Locked calls, jdbc backend on fencedlock.jdbc.url: "
                            + fiftyCalls(context.getBean(Jobs.class)) + " ms"));
        }
    }

    private static long fiftyCalls(Jobs jobs) {
        long start = System.nanoTime();
        for (int i = 0; i < 50; i++) {
            jobs.ifFree("first-day:timed", new AtomicInteger());
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Test
    void whenTakenSkipRunsOnlyIfFreeAndSaysSoInTheReturnValue() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FencedLockAutoConfiguration.class, AopAutoConfiguration.class))
                .withPropertyValues("fencedlock.backend=local")
                .withBean(Jobs.class)
                .run(context -> {
                    Jobs jobs = context.getBean(Jobs.class);
                    LockClient client = context.getBean(LockClient.class);
                    AtomicInteger runs = new AtomicInteger();
                    try (Lease held = client.lock("first-day:job").acquire(Duration.ofSeconds(5))) {
                        assertThat(jobs.ifFreeOptional("first-day:job", runs)).isEmpty();
                        assertThat(jobs.ifFree("first-day:job", runs)).isNull();
                        jobs.ifFreeVoid("first-day:job", runs);
                        assertThat(runs).as("no skipped call ran").hasValue(0);
                        assertThatThrownBy(() -> jobs.orFail("first-day:job"))
                                .as("the default still fails")
                                .isInstanceOf(LockTimeoutException.class);
                    }
                    assertThat(jobs.ifFreeOptional("first-day:job", runs)).contains("ran");
                    assertThat(jobs.ifFree("first-day:job", runs)).isEqualTo("ran");
                    jobs.ifFreeVoid("first-day:job", runs);
                    assertThat(runs).hasValue(3);
                    assertThatThrownBy(() -> jobs.primitive("first-day:job"))
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("whenTaken = SKIP")
                            .hasMessageContaining("primitive");
                });
    }

    @Test
    void metersExistAtZeroBeforeTheFirstEventAndHoldTimesAreTimed() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FencedLockAutoConfiguration.class))
                .withPropertyValues("fencedlock.backend=local")
                .run(context -> {
                    MeterRegistry registry = new SimpleMeterRegistry();
                    context.getBean("fencedLockMetrics", MeterBinder.class).bindTo(registry);
                    for (LeaseLostException.Reason reason : LeaseLostException.Reason.values()) {
                        assertThat(registry.get("fencedlock.lease.lost")
                                        .tag("reason", reason.name().toLowerCase())
                                        .counter()
                                        .count())
                                .isZero();
                    }
                    assertThat(registry.get("fencedlock.fence.refusals")
                                    .counter()
                                    .count())
                            .isZero();
                    try (Lease lease = context.getBean(LockClient.class)
                            .lock("first-day:held")
                            .acquire(Duration.ofSeconds(5))) {
                        assertThat(lease.isValid()).isTrue();
                    }
                    assertThat(registry.get("fencedlock.lease.held")
                                    .tag("backend", "local")
                                    .timer()
                                    .count())
                            .isEqualTo(1);
                });
    }

    /** Locked jobs: "run only if free" in each return shape, and the default. */
    static class Jobs {
        @Locked(value = "#name", waitTime = "0s", whenTaken = WhenTaken.SKIP)
        public Optional<String> ifFreeOptional(String name, AtomicInteger runs) {
            runs.incrementAndGet();
            return Optional.of("ran");
        }

        @Locked(value = "#name", waitTime = "0s", whenTaken = WhenTaken.SKIP)
        public String ifFree(String name, AtomicInteger runs) {
            runs.incrementAndGet();
            return "ran";
        }

        @Locked(value = "#name", waitTime = "0s", whenTaken = WhenTaken.SKIP)
        public void ifFreeVoid(String name, AtomicInteger runs) {
            runs.incrementAndGet();
        }

        @Locked(value = "#name", waitTime = "0s")
        public String orFail(String name) {
            return "ran";
        }

        @Locked(value = "#name", waitTime = "0s", whenTaken = WhenTaken.SKIP)
        public int primitive(String name) {
            return 1;
        }

        @Locked("'first-day:outer'")
        public String nested(LockClient client) throws InterruptedException {
            try (Lease inner = client.lock("first-day:inner").acquire(Duration.ofSeconds(5))) {
                return inner.lockName();
            }
        }
    }
}
