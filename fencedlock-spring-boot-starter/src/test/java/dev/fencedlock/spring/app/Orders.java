package dev.fencedlock.spring.app;

import org.springframework.data.jpa.repository.JpaRepository;

public interface Orders extends JpaRepository<Order, Long> {
    long countBySku(String sku);

    long deleteBySku(String sku);
}
