package dev.fencedlock.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.Ordered;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Auto-configures fencedlock for a Spring Boot application: a {@link dev.fencedlock.LockClient}
 * from the {@code fencedlock.*} properties, the {@link Locked} advice, {@link FencedTransactions},
 * the fence guard on the application's transaction managers, and, where their libraries are
 * present, the schema initializer, the health indicator {@code fencedLock}, Micrometer meters and
 * observations, the Actuator endpoint {@code fencedlock}, and the {@code Fencing-Token} header on
 * the calls of the auto-configured HTTP clients. Exclude it to turn all of it off.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration"
        })
@Import(FencedLockAutoConfiguration.Beans.class)
public class FencedLockAutoConfiguration {

    /**
     * The order of the {@link Locked} advisor: ahead of Spring's transaction advisor (which has
     * {@link Ordered#LOWEST_PRECEDENCE} unless {@code @EnableTransactionManagement(order = ...)}
     * says otherwise), so the lock is taken before the transaction begins and released after it
     * completed.
     */
    public static final int LOCKED_ADVISOR_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    /**
     * The bean definitions live beside the package-private classes they create; a class literal
     * cannot name a package-private class of another package, so they are imported by name.
     */
    static final class Beans implements ImportSelector {
        @Override
        public String[] selectImports(AnnotationMetadata metadata) {
            return new String[] {
                "dev.fencedlock.spring.internal.FencedLockConfiguration",
                "dev.fencedlock.spring.internal.TokenSenderConfiguration",
                "dev.fencedlock.spring.actuate.EndpointConfiguration"
            };
        }
    }
}
