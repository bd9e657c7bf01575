package dev.fencedlock.spring.internal;

import dev.fencedlock.jdbc.FenceGuard;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * Adds a {@link FenceGuardListener} to every transaction manager of the context, whoever created
 * it (Spring Boot or the application), so that no transaction begun under a lock escapes the
 * fence.
 */
final class FencedTransactionManagers implements BeanPostProcessor {
    private static final boolean JPA = ClassUtils.isPresent(
            "org.springframework.orm.jpa.JpaTransactionManager", FencedTransactionManagers.class.getClassLoader());

    private final Supplier<FenceGuard> guard;

    public FencedTransactionManagers(Supplier<FenceGuard> guard) {
        this.guard = guard;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof AbstractPlatformTransactionManager manager) {
            manager.addListener(new FenceGuardListener(manager, dataSourceOf(manager), guard.get()));
        }
        return bean;
    }

    private static DataSource dataSourceOf(AbstractPlatformTransactionManager manager) {
        if (manager instanceof DataSourceTransactionManager jdbc) {
            return jdbc.getDataSource();
        }
        if (JPA && manager instanceof JpaTransactionManager jpa) {
            return jpa.getDataSource();
        }
        return null;
    }
}
