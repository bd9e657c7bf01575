package dev.fencedlock.examples.spring;

import org.springframework.data.jpa.repository.JpaRepository;

interface Stock extends JpaRepository<StockItem, String> {}
