package dev.fencedlock.spring.internal;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.spring.FenceRefusalListener;
import dev.fencedlock.spring.FencedBy;
import dev.fencedlock.spring.FencedLockAutoConfiguration;
import dev.fencedlock.spring.FencedTransactions;
import dev.fencedlock.spring.Locked;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.env.Environment;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * The beans of {@link FencedLockAutoConfiguration}, declared beside the classes they create so that
 * those stay package-private: a {@link LockClient} from the {@code fencedlock.*} properties, the
 * {@link Locked} and {@link FencedBy} advice, {@link FencedTransactions}, and the fence guard on the
 * application's transaction managers; the schema, health, observations, meters and the receiver's
 * HTTP statuses where their libraries are present.
 */
@Configuration(proxyBeanMethods = false)
class FencedLockConfiguration {
    /**
     * The client, from every {@code fencedlock.*} property; closed with the context. With {@code
     * fencedlock.backend=jdbc} and no {@code fencedlock.jdbc.url}, the jdbc backend keeps its locks
     * in the application's {@code DataSource} ({@link ApplicationDataSourceLocks}).
     *
     * @throws dev.fencedlock.spring.FencedLockStartupException (failing start-up) whose cause is
     *     the {@link IllegalArgumentException} naming the key of a missing, unknown or bad setting
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    LockClient fencedLockClient(
            Environment environment,
            ObjectProvider<LockEventListener> listeners,
            ObjectProvider<FencedLockSchemaInitializer> schema,
            ObjectProvider<DataSource> dataSource) {
        // the jdbc backend's lock table first
        schema.ifAvailable(initialized -> {});
        LockEventListener listener =
                new LockEventListeners(listeners.orderedStream().toList());
        try {
            LockConfig config = SpringLockConfig.from(environment);
            if (ApplicationDataSourceLocks.applies(config, environment)) {
                return ApplicationDataSourceLocks.create(config, dataSource.getIfUnique(), listener);
            }
            return LockClient.create(config, listener);
        } catch (IllegalArgumentException e) {
            throw SpringLockConfig.startupFailure(e);
        }
    }

    @Bean
    @ConditionalOnMissingBean
    LockedExecution fencedLockExecution(
            ObjectProvider<FenceRefusalListener> refusals, ObjectProvider<LockedObservations> observations) {
        List<FenceRefusalListener> all = refusals.orderedStream().toList();
        return new LockedExecution(
                refusal -> all.forEach(listener -> listener.refused(refusal)),
                observations.getIfAvailable(() -> LockedObservations.NONE));
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor fencedLockAdvisor(
            ObjectProvider<LockClient> client, ObjectProvider<LockedExecution> execution, BeanFactory beans) {
        LockedInterceptor interceptor =
                new LockedInterceptor(client::getObject, execution::getObject, new BeanFactoryResolver(beans));
        // checkInherited: @Locked on an interface or superclass method counts, as @Transactional does
        DefaultPointcutAdvisor advisor =
                new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, Locked.class, true), interceptor);
        advisor.setOrder(FencedLockAutoConfiguration.LOCKED_ADVISOR_ORDER);
        return advisor;
    }

    /**
     * The receiver's checks of presented tokens and the bound of its fenced transactions, from the
     * {@code fencedlock.token.*} properties ({@link ReceiverSettings}), over every source of presented
     * headers in the context.
     *
     * @throws dev.fencedlock.spring.FencedLockStartupException (failing start-up) naming the key of a
     *     bad setting
     */
    @Bean
    @ConditionalOnMissingBean
    PresentedTokens fencedLockPresentedTokens(Environment environment, ObjectProvider<PresentedHeaders> sources) {
        ReceiverSettings settings;
        try {
            settings = ReceiverSettings.from(environment);
        } catch (IllegalArgumentException e) {
            throw SpringLockConfig.startupFailure(e);
        }
        return new PresentedTokens(
                settings.check(), settings.bound(), sources.orderedStream().toList());
    }

    /** The {@link FencedBy} advice, ordered like the {@link Locked} advice: outside the transaction's. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor fencedLockReceiverAdvisor(
            ObjectProvider<PresentedTokens> tokens, ObjectProvider<LockedExecution> execution, BeanFactory beans) {
        FencedByInterceptor interceptor =
                new FencedByInterceptor(tokens::getObject, execution::getObject, new BeanFactoryResolver(beans));
        DefaultPointcutAdvisor advisor =
                new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, FencedBy.class, true), interceptor);
        advisor.setOrder(FencedLockAutoConfiguration.LOCKED_ADVISOR_ORDER);
        return advisor;
    }

    /**
     * Refuses JDBC connections taken inside a locked call outside any transaction ({@link
     * UnfencedConnectionGuard}): their writes would run in autocommit, unfenced.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor fencedLockUnfencedConnectionAdvisor() {
        UnfencedConnectionGuard guard = new UnfencedConnectionGuard();
        return new DefaultPointcutAdvisor(guard, guard);
    }

    /** The fence table {@value FenceTable#DEFAULT_NAME}; define a bean of this type to use another table. */
    @Bean
    @ConditionalOnMissingBean
    FenceTable fencedLockFenceTable() {
        return FenceTable.standard();
    }

    @Bean
    static FencedTransactionManagers fencedLockTransactionManagers(ObjectProvider<FenceTable> table) {
        return new FencedTransactionManagers(() -> table.getIfAvailable(FenceTable::standard));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(PlatformTransactionManager.class)
    FencedTransactions fencedTransactions(
            LockClient client, PlatformTransactionManager transactionManager, LockedExecution execution) {
        return new LockedTransactions(client, transactionManager, execution);
    }

    /**
     * Creates the fence table (and the jdbc backend's lock table) as {@code
     * fencedlock.initialize-schema} says: {@code embedded} (default), {@code always}, {@code never}.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({EmbeddedDatabaseConnection.class, DatabaseInitializationMode.class})
    static class Schema {
        @Bean
        @ConditionalOnMissingBean
        FencedLockSchemaInitializer fencedLockSchemaInitializer(
                ObjectProvider<DataSource> dataSource, ObjectProvider<FenceTable> table, Environment environment) {
            return new FencedLockSchemaInitializer(
                    dataSource.getIfUnique(),
                    table.getIfAvailable(FenceTable::standard).name(),
                    environment);
        }
    }

    /**
     * Hands {@code fencedlock.protected-tables} to fencing-jpa's start-up check of fenced entity
     * tables ({@link ProtectedTablesMode}), when Hibernate is auto-configured.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HibernatePropertiesCustomizer.class)
    static class ProtectedTables {
        @Bean
        HibernatePropertiesCustomizer fencedLockProtectedTables(Environment environment) {
            String mode;
            try {
                mode = ProtectedTablesMode.resolve(environment);
            } catch (IllegalArgumentException e) {
                throw SpringLockConfig.startupFailure(e);
            }
            return properties -> properties.putIfAbsent(ProtectedTablesMode.HIBERNATE_SETTING, mode);
        }
    }

    /** The header of the servlet request a {@link FencedBy} call serves, where Spring's web support is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RequestContextHolder.class, HttpServletRequest.class})
    static class ServletRequests {
        @Bean
        PresentedHeaders fencedLockRequestHeaders() {
            return new RequestPresentedHeaders();
        }
    }

    /**
     * {@link FencedBy} failures as HTTP statuses with problem bodies ({@link ReceiverProblems}) in a
     * Spring MVC application; the application's own exception handlers run first. A bean named
     * {@code fencedLockReceiverProblems} replaces it.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({HandlerExceptionResolver.class, HttpServletResponse.class})
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static class ReceiverResponses {
        @Bean
        @ConditionalOnMissingBean(name = "fencedLockReceiverProblems")
        ReceiverProblems fencedLockReceiverProblems() {
            return new ReceiverProblems();
        }
    }

    /** The health indicator {@code fencedLock} when Spring Boot's health support is on the classpath. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class HealthCheck {
        @Bean
        @ConditionalOnMissingBean(name = "fencedLockHealthIndicator")
        FencedLockHealthIndicator fencedLockHealthIndicator(LockClient client) {
            return new FencedLockHealthIndicator(client);
        }
    }

    /**
     * Observations of {@code @Locked} calls ({@link LockedObservations}: the call, its acquisition,
     * the fence guard and each fenced commit) in the application's {@link ObservationRegistry} bean,
     * when it has one; Spring Boot's tracing makes them spans.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    static class Observations {
        @Bean
        @ConditionalOnMissingBean
        LockedObservations fencedLockObservations(ObjectProvider<ObservationRegistry> registry) {
            return new MicrometerObservations(() -> registry.getIfAvailable(() -> ObservationRegistry.NOOP));
        }
    }

    /** Micrometer meters ({@link LockMetrics}) when Micrometer is on the classpath. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean
        LockMetrics fencedLockMetrics() {
            return new LockMetrics();
        }
    }
}
