# Data sets and ordinal::clmm reference fits for tests/core/test_stats_ordinal.py.
#
# Run once from the repository root:  Rscript tests/analysis/data/clmm/make_reference.R
# It fits cumulative link mixed models (logit link, flexible thresholds, Laplace
# approximation, clmm's default control) to the thesis-shaped study of the lme4 references
# (tests/analysis/data/lme4/study.csv, raw 1-5 answers) and to a simulated set of 500
# participants x 5,000 items that it writes as large.csv.gz, and writes reference.json.
# The Python tests compare analysis.stats.ordinal against these numbers; they never
# regenerate them.
suppressPackageStartupMessages({
  library(ordinal)
  library(jsonlite)
})
out <- "tests/analysis/data/clmm"
groups <- c("hypothesis", "order", "swap", "phrase", "choice")

# 500 participants, each rating 100 of 5,000 items (each item by about 10 people); answers
# from a latent logistic model with participant and item intercepts.
set.seed(20170602)
n_part <- 500
n_items <- 5000
item_group <- sample(groups, n_items, replace = TRUE, prob = c(0.5, rep(0.125, 4)))
shift <- c(hypothesis = 0, order = -0.8, swap = -0.5, phrase = -1.0, choice = 0.6)
item_effect <- rnorm(n_items, 0, 1.0)
part_effect <- rnorm(n_part, 0, 0.7)
cuts <- c(-2.0, -0.7, 0.5, 1.8)
rows <- lapply(seq_len(n_part), function(p) {
  items <- sort(sample(n_items, 100))
  latent <- shift[item_group[items]] + item_effect[items] + part_effect[p] +
    rlogis(length(items))
  data.frame(participant = p, item = items, group = item_group[items],
             rating = findInterval(latent, cuts) + 1L)
})
large <- do.call(rbind, rows)
con <- gzfile(file.path(out, "large.csv.gz"), "w")
write.csv(large, con, row.names = FALSE)
close(con)

study <- read.csv("tests/analysis/data/lme4/study.csv")
datasets <- list(study = study, large = large)

fit_summary <- function(name, data_file, formula, data) {
  data$group <- factor(data$group, levels = groups)
  response <- all.vars(formula)[1]
  data[[response]] <- factor(data[[response]], ordered = TRUE)
  data$participant <- factor(data$participant)
  data$item <- factor(data$item)
  started <- proc.time()
  fit <- clmm(formula, data = data, link = "logit", threshold = "flexible")
  used <- proc.time() - started
  coefs <- coef(summary(fit))
  vc <- VarCorr(fit)
  re <- ranef(fit)
  list(
    name = name,
    data = data_file,
    formula = deparse(formula),
    n_obs = fit$dims$nobs,
    thresholds = as.list(fit$alpha),
    fixef = as.list(fit$beta),
    se = as.list(setNames(coefs[, "Std. Error"], rownames(coefs))),
    z = as.list(setNames(coefs[, "z value"], rownames(coefs))),
    variances = as.list(sapply(vc, function(v) as.numeric(v[1, 1]))),
    loglik = as.numeric(logLik(fit)),
    ranef = if (name == "study_order_crossed" || name == "study_order_participant")
      lapply(re, function(r) as.list(setNames(r[[1]], rownames(r)))) else NULL,
    max_gradient = max(abs(fit$gradient)),
    condition_hessian = fit$cond.H,
    evaluations = fit$optRes$evaluations[["function"]],
    seconds = used[["elapsed"]],
    cpu = used[["user.self"]] + used[["sys.self"]]
  )
}

models <- list(
  list("study_order_participant", "study", order ~ 1 + (1 | participant)),
  list("study_order_crossed", "study", order ~ group + (1 | participant) + (1 | item)),
  list("study_holistic_crossed", "study", holistic ~ group + (1 | participant) + (1 | item)),
  list("large_crossed", "large", rating ~ group + (1 | participant) + (1 | item))
)
files <- c(study = "../lme4/study.csv", large = "large.csv.gz")
reference <- list(
  ordinal_version = as.character(packageVersion("ordinal")),
  r_version = R.version.string,
  fits = lapply(models, function(m) {
    fit_summary(m[[1]], files[[m[[2]]]], m[[3]], datasets[[m[[2]]]])
  })
)
writeLines(toJSON(reference, auto_unbox = TRUE, digits = NA, pretty = TRUE, null = "null"),
           file.path(out, "reference.json"))
