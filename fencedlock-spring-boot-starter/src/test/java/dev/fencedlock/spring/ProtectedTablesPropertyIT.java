package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code fencedlock.protected-tables} reaches Hibernate as fencing-jpa's setting {@code
 * fencedlock.jpa.protected-tables}, with the default {@code warn}
 * on an embedded H2 database and on PostgreSQL.
 */
class ProtectedTablesPropertyIT {
    private static final String SETTING = "fencedlock.jpa.protected-tables";
    private static final String POSTGRES = "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DataSourceAutoConfiguration.class, FencedLockAutoConfiguration.class))
            .withPropertyValues("fencedlock.backend=local", "fencedlock.initialize-schema=never");

    @Test
    void byDefaultStartUpWarnsOfUnprotectedTables() {
        runner.withPropertyValues("fencedlock.initialize-schema=embedded")
                .run(context -> assertThat(setting(context)).isEqualTo("warn"));
    }

    @Test
    void theDefaultDoesNotDependOnTheDatabase() {
        runner.run(context -> assertThat(setting(context)).isEqualTo("warn"));
        runner.withPropertyValues(POSTGRES, "spring.datasource.username=postgres")
                .run(context -> assertThat(setting(context)).isEqualTo("warn"));
    }

    @Test
    void protectIsChosenExplicitly() {
        runner.withPropertyValues(
                        POSTGRES, "spring.datasource.username=postgres", "fencedlock.protected-tables=protect")
                .run(context -> assertThat(setting(context)).isEqualTo("protect"));
    }

    @Test
    void explicitValueWins() {
        runner.withPropertyValues("fencedlock.initialize-schema=embedded", "fencedlock.protected-tables=WARN")
                .run(context -> assertThat(setting(context)).isEqualTo("warn"));
    }

    @Test
    void unknownValueFailsStartUpNamingTheProperty() {
        runner.withPropertyValues("fencedlock.protected-tables=maybe")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("fencedlock.protected-tables")
                        .hasMessageContaining("maybe")
                        .hasMessageContaining("require"));
    }

    private static String setting(AssertableApplicationContext context) {
        assertThat(context).hasNotFailed();
        Map<String, Object> properties = new HashMap<>();
        context.getBeansOfType(HibernatePropertiesCustomizer.class)
                .values()
                .forEach(customizer -> customizer.customize(properties));
        return (String) properties.get(SETTING);
    }
}
