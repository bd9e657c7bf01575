package dev.fencedlock.spring.test.app;

import org.springframework.data.jpa.repository.JpaRepository;

public interface StockItems extends JpaRepository<StockItem, String> {}
